import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { matchExpectations } from '../../src/expectations/index.ts';
import { expectationsArbitrary, itemsArbitrary, permuted } from './match-arbitraries.ts';

const NOW = '2026-03-08T00:00:00.000Z';
const RUNS = 500;

describe('matching, for random expectations and settled items', () => {
  test('the result is the same for any order of the inputs', () => {
    fc.assert(
      fc.property(expectationsArbitrary(), itemsArbitrary(), fc.integer(), (es, items, seed) => {
        const options = { allExpected: 'both' } as const;
        const first = matchExpectations(es, items, NOW, options);
        const again = matchExpectations(
          permuted(es, seed),
          permuted(items, seed + 1),
          NOW,
          options,
        );
        expect(again).toEqual(first);
      }),
      { numRuns: RUNS },
    );
  });

  test('an item pays two expectations only when they share a match group', () => {
    fc.assert(
      fc.property(expectationsArbitrary(), itemsArbitrary(), (es, items) => {
        const groupOf = new Map(es.map((e) => [e.id, e.match_group]));
        const payees = new Map<string, number[]>();
        for (const m of matchExpectations(es, items, NOW).matches) {
          const key = `${m.itemKind}/${m.itemId}`;
          payees.set(key, [...(payees.get(key) ?? []), m.expectation]);
        }
        for (const ids of payees.values()) {
          if (ids.length === 1) continue;
          const groups = new Set(ids.map((id) => groupOf.get(id)));
          expect(groups.size).toBe(1);
          expect([...groups][0]).not.toBeNull();
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('no money is lost: match amounts add up to the items matched', () => {
    fc.assert(
      fc.property(expectationsArbitrary(), itemsArbitrary(), (es, items) => {
        const amountOf = new Map(items.map((i) => [`${i.kind}/${i.id}`, i.amount]));
        const groupOf = new Map(es.map((e) => [e.id, e.match_group]));
        const result = matchExpectations(es, items, NOW);
        // Per expectation outside a group: the sum of its matches is the sum of its items.
        const perExpectation = new Map<number, { matched: number; items: number }>();
        // Per item paying a group: the sum over the group is the item's amount.
        const perGroupItem = new Map<string, number>();
        for (const m of result.matches) {
          const key = `${m.itemKind}/${m.itemId}`;
          if (groupOf.get(m.expectation) !== null) {
            perGroupItem.set(key, (perGroupItem.get(key) ?? 0) + m.amount);
            continue;
          }
          const sums = perExpectation.get(m.expectation) ?? { matched: 0, items: 0 };
          sums.matched += m.amount;
          sums.items += amountOf.get(key)!;
          perExpectation.set(m.expectation, sums);
        }
        for (const sums of perExpectation.values()) expect(sums.matched).toBe(sums.items);
        for (const [key, sum] of perGroupItem) expect(sum).toBe(amountOf.get(key));
        // And each state's matched amount is the sum of its matches in its own currency.
        for (const s of result.states) {
          const own = result.matches.filter(
            (m) => m.expectation === s.expectation && m.sameCurrency,
          );
          expect(s.matchedAmount).toBe(own.reduce((t, m) => t + m.amount, 0));
        }
      }),
      { numRuns: RUNS },
    );
  });
});
