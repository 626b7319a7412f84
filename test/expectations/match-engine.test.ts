import { describe, expect, test } from 'vitest';
import { matchExpectations } from '../../src/expectations/index.ts';
import { expectation, item, NOW } from './match-fixtures.ts';

const summary = (result: ReturnType<typeof matchExpectations>) => ({
  matches: result.matches.map((m) => `${m.expectation}<-${m.itemId}:${m.amount}:${m.rule}`),
  states: result.states.map((s) => `${s.expectation}:${s.state}:${s.matchedAmount}`),
  breaks: result.breaks.map((b) => b.dedupeKey),
});

describe('rules: each applies alone', () => {
  test.each([
    {
      rule: 'id',
      e: expectation({
        item_id: 'tr_9',
        amount_min: 1,
        amount_max: 1,
        window_to: '2026-03-06T00:00:00.000Z',
      }),
      items: [item({ id: 'tr_9', amount: 1 })],
    },
    {
      rule: 'reference',
      e: expectation({ reference: 'payout-7' }),
      items: [item({ id: 'tr_7', reference: 'payout-7', settledAt: '2026-01-01T00:00:00.000Z' })],
    },
    {
      rule: 'amount_window',
      e: expectation({ counterparty: '221770000000', description_pattern: 'PAY*' }),
      items: [item({ id: 'tr_3' })],
    },
  ])('$rule matches the item and the expectation is matched', ({ rule, e, items }) => {
    const result = matchExpectations([e], items, NOW);
    expect(result.matches).toEqual([
      expect.objectContaining({ expectation: 1, itemId: items[0]!.id, rule }),
    ]);
    expect(result.states).toEqual([
      { expectation: 1, state: 'matched', matchedAmount: items[0]!.amount },
    ]);
    // The reference rule ignores the window (an item settled before it still matches).
    expect(result.breaks).toEqual([]);
  });

  test('the id rule takes the item before the reference and amount rules can', () => {
    const byId = expectation({
      id: 1,
      expectation_id: 'E-1',
      item_id: 'tr_1',
      window_to: '2026-03-30T00:00:00.000Z',
    });
    const byAmount = expectation({ id: 2, expectation_id: 'E-2' });
    const result = matchExpectations([byAmount, byId], [item()], NOW);
    expect(summary(result).matches).toEqual(['1<-tr_1:25000:id']);
    expect(summary(result).states).toEqual(['2:open:0', '1:matched:25000']);
  });

  test('amount_window needs every filter given: a different counterparty does not match', () => {
    const result = matchExpectations(
      [expectation({ counterparty: '221779999999' })],
      [item()],
      NOW,
    );
    expect(result.matches).toEqual([]);
    expect(result.states[0]!.state).toBe('open');
  });

  test('amount_window is greedy in canonical order and uses an item once', () => {
    const result = matchExpectations(
      [
        expectation({ id: 2, expectation_id: 'E-2', window_to: '2026-03-21T00:00:00.000Z' }),
        expectation({ id: 1, expectation_id: 'E-1' }),
      ],
      [item({ id: 'tr_2', settledAt: '2026-03-06T00:00:00.000Z' }), item({ id: 'tr_1' })],
      NOW,
    );
    expect(summary(result).matches).toEqual([
      '1<-tr_1:25000:amount_window',
      '2<-tr_2:25000:amount_window',
    ]);
  });

  test('one-to-many: a split expectation adds up its reference items', () => {
    const e = expectation({ reference: 'inv-1', allow_split: true, direction: 'in' });
    const part = (id: string, amount: number, second: number) =>
      item({
        kind: 'payment_intent',
        id,
        direction: 'in',
        reference: 'inv-1',
        amount,
        settledAt: `2026-03-05T10:00:0${second}.000Z`,
      });
    const under = matchExpectations([e], [part('pi_1', 10000, 1)], NOW);
    expect(summary(under).states).toEqual(['1:partially_matched:10000']);
    expect(under.breaks).toEqual([]);
    const whole = matchExpectations([e], [part('pi_1', 10000, 1), part('pi_2', 15000, 2)], NOW);
    expect(summary(whole).states).toEqual(['1:matched:25000']);
    const over = matchExpectations(
      [e],
      [part('pi_1', 10000, 1), part('pi_2', 15000, 2), part('pi_3', 500, 3)],
      NOW,
    );
    expect(over.breaks).toEqual([
      expect.objectContaining({ kind: 'amount_mismatch', itemId: 'pi_3', difference: 500 }),
    ]);
  });

  test.each([
    { how: 'reference', reference: 'batch-1', amount: 30000 },
    { how: 'sum', reference: 'nothing', amount: 30000 },
  ])('many-to-one by $how: one item pays every member of the group', ({ reference, amount }) => {
    const members = [
      expectation({
        id: 1,
        expectation_id: 'E-1',
        amount_min: 10000,
        amount_max: 10000,
        match_group: 'batch-1',
      }),
      expectation({
        id: 2,
        expectation_id: 'E-2',
        amount_min: 20000,
        amount_max: 20000,
        match_group: 'batch-1',
      }),
    ];
    const result = matchExpectations(members, [item({ id: 'tr_5', reference, amount })], NOW);
    expect(summary(result).matches).toEqual([
      `1<-tr_5:10000:${reference === 'batch-1' ? 'reference' : 'amount_window'}`,
      `2<-tr_5:20000:${reference === 'batch-1' ? 'reference' : 'amount_window'}`,
    ]);
    expect(summary(result).states).toEqual(['1:matched:10000', '2:matched:20000']);
    expect(result.breaks).toEqual([]);
  });
});

describe('states', () => {
  test.each([
    { state: 'open', e: expectation(), items: [] },
    { state: 'overdue', e: expectation({ window_to: '2026-03-09T00:00:00.000Z' }), items: [] },
    { state: 'matched', e: expectation(), items: [item()] },
    {
      state: 'partially_matched',
      e: expectation({ reference: 'r', allow_split: true }),
      items: [item({ reference: 'r', amount: 5000 })],
    },
    { state: 'cancelled', e: expectation({ state: 'cancelled' }), items: [item()] },
    { state: 'resolved_manually', e: expectation({ state: 'resolved_manually' }), items: [item()] },
  ] as const)('$state', ({ state, e, items }) => {
    const result = matchExpectations([e], items, NOW);
    if (state === 'cancelled' || state === 'resolved_manually') {
      // Left alone: no state, no match; the item stays free.
      expect(result).toEqual({ matches: [], states: [], breaks: [] });
    } else {
      expect(result.states.map((s) => s.state)).toEqual([state]);
    }
  });
});

describe('breaks: each alone, explained', () => {
  test('missing', () => {
    const result = matchExpectations(
      [expectation({ window_to: '2026-03-09T00:00:00.000Z' })],
      [],
      NOW,
    );
    expect(result.breaks).toEqual([
      {
        kind: 'missing',
        expectation: 1,
        itemKind: null,
        itemId: null,
        difference: -25000,
        currency: 'XOF',
        explanation:
          'Expectation E-1 expected 25,000 XOF to be paid between 2026-03-01T00:00:00.000Z and 2026-03-09T00:00:00.000Z, and no settled item matched it.',
        suggestedAction: expect.stringContaining('Check whether the payout was sent'),
        dedupeKey: 'missing:1:-',
      },
    ]);
  });

  test('amount_mismatch, with the difference', () => {
    const result = matchExpectations(
      [expectation({ reference: 'p-1' })],
      [item({ reference: 'p-1', amount: 24000 })],
      NOW,
    );
    expect(result.breaks).toEqual([
      expect.objectContaining({
        kind: 'amount_mismatch',
        difference: -1000,
        explanation:
          'Expectation E-1 expected 25,000 XOF and transfer tr_1 settled 24,000 XOF: a difference of -1,000 XOF.',
        dedupeKey: 'amount_mismatch:1:transfer/tr_1',
      }),
    ]);
    expect(result.states[0]).toEqual({
      expectation: 1,
      state: 'partially_matched',
      matchedAmount: 24000,
    });
  });

  test('amount_mismatch by id, over the bounds: the difference to the nearer bound', () => {
    const e = expectation({ item_id: 'tr_1', amount_min: 20000, amount_max: 24000 });
    const [found] = matchExpectations([e], [item()], NOW).breaks;
    expect(found).toMatchObject({ kind: 'amount_mismatch', difference: 1000 });
    expect(found!.explanation).toBe(
      'Expectation E-1 expected between 20,000 XOF and 24,000 XOF and transfer tr_1 settled 25,000 XOF: a difference of +1,000 XOF.',
    );
  });

  test('currency_mismatch', () => {
    const result = matchExpectations(
      [expectation({ item_id: 'tr_1' })],
      [item({ currency: 'EUR', amount: 3800 })],
      NOW,
    );
    expect(result.breaks).toEqual([
      expect.objectContaining({
        kind: 'currency_mismatch',
        explanation:
          'Expectation E-1 expected 25,000 XOF and transfer tr_1 settled 38.00 EUR, in another currency.',
      }),
    ]);
    expect(result.states[0]).toEqual({ expectation: 1, state: 'open', matchedAmount: 0 });
  });

  test('duplicate: the first in canonical order is the match', () => {
    const result = matchExpectations(
      [expectation({ reference: 'p-1' })],
      [
        item({ id: 'tr_2', reference: 'p-1', settledAt: '2026-03-06T00:00:00.000Z' }),
        item({ id: 'tr_1', reference: 'p-1' }),
      ],
      NOW,
    );
    expect(result.matches.map((m) => m.itemId)).toEqual(['tr_1']);
    expect(result.breaks).toEqual([
      expect.objectContaining({
        kind: 'duplicate',
        itemId: 'tr_2',
        dedupeKey: 'duplicate:1:transfer/tr_2',
      }),
    ]);
  });

  test('late: matched after the window, still matched', () => {
    const result = matchExpectations(
      [expectation({ reference: 'p-1', window_to: '2026-03-04T00:00:00.000Z' })],
      [item({ reference: 'p-1' })],
      NOW,
    );
    expect(result.states[0]!.state).toBe('matched');
    expect(result.matches[0]!.late).toBe(true);
    expect(result.breaks).toEqual([
      expect.objectContaining({
        kind: 'late',
        explanation:
          'Expectation E-1 was matched by transfer tr_1 (25,000 XOF), which settled at 2026-03-05T10:00:00.000Z, after its window ended at 2026-03-04T00:00:00.000Z.',
      }),
    ]);
  });

  test('reversed_after_match', () => {
    const refund = item({
      kind: 'refund',
      id: '41',
      direction: 'in',
      reference: null,
      originalId: 'tr_1',
      settledAt: '2026-03-07T00:00:00.000Z',
    });
    const result = matchExpectations([expectation()], [item(), refund], NOW, {
      allExpected: 'both',
    });
    expect(result.breaks).toEqual([
      expect.objectContaining({
        kind: 'reversed_after_match',
        itemId: '41',
        difference: -25000,
        dedupeKey: 'reversed_after_match:1:refund/41',
      }),
    ]);
  });

  test.each([
    { option: 'off', found: [] },
    { option: 'in', found: [] },
    { option: 'out', found: ['unexpected:-:transfer/tr_1'] },
    { option: 'both', found: ['unexpected:-:transfer/tr_1'] },
  ] as const)('unexpected when allExpected is $option', ({ option, found }) => {
    const result = matchExpectations([], [item()], NOW, { allExpected: option });
    expect(result.breaks.map((b) => b.dedupeKey)).toEqual(found);
    if (found.length > 0) {
      expect(result.breaks[0]!.explanation).toBe(
        'Transfer tr_1 paid 25,000 XOF at 2026-03-05T10:00:00.000Z, and no expectation claims it.',
      );
    }
  });
});
