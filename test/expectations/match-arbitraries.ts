import fc from 'fast-check';
import type { MatchableExpectation, SettledItem } from '../../src/expectations/index.ts';

// Small domains, so that rules collide often: few amounts, days, references and ids.
const day = (n: number) => `2026-03-${String(n).padStart(2, '0')}T00:00:00.000Z`;
const amount = fc.constantFrom(1000, 2000, 3000, 5000);
const reference = fc.option(fc.constantFrom('r1', 'r2', 'g1'), { nil: null });

/** Up to ten expectations; at least `minLength`. */
export const expectationsArbitrary = (minLength = 0) =>
  fc
    .array(
      fc.record({
        direction: fc.constantFrom('in' as const, 'out' as const),
        currency: fc.constantFrom('XOF', 'EUR'),
        min: amount,
        extra: fc.constantFrom(0, 0, 1000),
        from: fc.integer({ min: 1, max: 6 }),
        length: fc.integer({ min: 0, max: 4 }),
        reference,
        itemId: fc.option(fc.constantFrom('tr_1', 'pi_2', 'tr_3'), { nil: null, freq: 4 }),
        counterparty: fc.option(fc.constantFrom('221770000001'), { nil: null, freq: 4 }),
        allowSplit: fc.boolean(),
        group: fc.option(fc.constantFrom('g1', 'g2'), { nil: null, freq: 3 }),
        closed: fc.constantFrom(false, false, false, true),
      }),
      { minLength, maxLength: 10 },
    )
    .map((rows) =>
      rows.map((r, i): MatchableExpectation => ({
        id: i + 1,
        expectation_id: `E-${i + 1}`,
        direction: r.direction,
        item_kinds: null,
        currency: r.currency,
        amount_min: r.min,
        amount_max: r.min + r.extra,
        window_from: day(r.from),
        window_to: day(r.from + r.length),
        reference: r.reference,
        item_id: r.itemId,
        counterparty: r.counterparty,
        purchase_reference: null,
        description_pattern: null,
        allow_split: r.allowSplit,
        match_group: r.group,
        state: r.closed ? 'cancelled' : 'open',
      })),
    );

/** Up to twelve settled items; at least `minLength`. */
export const itemsArbitrary = (minLength = 0) =>
  fc
    .array(
      fc.record({
        kind: fc.constantFrom('transfer' as const, 'payment_intent' as const, 'refund' as const),
        currency: fc.constantFrom('XOF', 'XOF', 'EUR'),
        amount: fc.constantFrom(1000, 2000, 3000, 4000, 5000, 8000),
        day: fc.integer({ min: 1, max: 9 }),
        hour: fc.integer({ min: 0, max: 2 }),
        reference,
        counterparty: fc.constantFrom('221770000001', '221770000002'),
        refunds: fc.integer({ min: 0, max: 5 }),
      }),
      { minLength, maxLength: 12 },
    )
    .map((rows) =>
      rows.map((r, i): SettledItem => {
        const prefix = r.kind === 'transfer' ? 'tr_' : r.kind === 'payment_intent' ? 'pi_' : '';
        const isRefund = r.kind === 'refund';
        return {
          kind: r.kind,
          id: `${prefix}${i + 1}`,
          direction: r.kind === 'transfer' ? 'out' : 'in',
          currency: r.currency,
          amount: r.amount,
          settledAt: `${day(r.day).slice(0, 11)}${String(r.hour).padStart(2, '0')}:00:00.000Z`,
          reference: isRefund ? null : r.reference,
          purchaseReference: r.kind === 'payment_intent' ? r.reference : null,
          counterparty: isRefund ? null : r.counterparty,
          description: r.kind === 'transfer' ? 'payout' : null,
          originalId: isRefund ? `tr_${r.refunds}` : null,
          status: 'successful',
        };
      }),
    );

/** A permutation of `values` chosen by `seed` (Fisher-Yates over a small LCG). */
export function permuted<T>(values: readonly T[], seed: number): T[] {
  const out = [...values];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
