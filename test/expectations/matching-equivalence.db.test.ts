import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  matchAllExpectations,
  matchExpectationsById,
  matchSettledItems,
  type MatchingSettings,
} from '../../src/expectations/index.ts';
import { freshDatabase } from '../support/test-database.ts';
import { expectationsArbitrary, itemsArbitrary, permuted } from './match-arbitraries.ts';
import {
  ENVIRONMENT,
  insertExpectation,
  matchingSnapshot,
  settle,
} from './support/matching-rows.ts';

const NOW = '2026-03-08T00:00:00.000Z';
const settings: MatchingSettings = { environment: ENVIRONMENT, allExpected: 'both' };
// Each run makes two databases: few runs, on both dialects.
const RUNS = 12;

describe('matching all at once equals matching items one by one as they settle', () => {
  test('same matches, states and open breaks', async () => {
    let matchesSeen = 0;
    await fc.assert(
      fc.asyncProperty(
        expectationsArbitrary(5),
        itemsArbitrary(6),
        fc.integer(),
        async (es, rawItems, seed) => {
          // Refund ids are numbers; a refund of a transfer is `in`.
          const items = rawItems.map((i) =>
            i.kind === 'refund' ? { ...i, id: String(100 + Number(i.id)) } : i,
          );
          const atOnce = await freshDatabase();
          const oneByOne = await freshDatabase();
          try {
            for (const e of es) await insertExpectation(atOnce.db, e);
            for (const i of items) await settle(atOnce.db, i);
            await atOnce.db
              .transaction()
              .execute((trx) => matchAllExpectations(trx, NOW, settings));

            const ids: number[] = [];
            for (const e of es) ids.push(await insertExpectation(oneByOne.db, e));
            await oneByOne.db
              .transaction()
              .execute((trx) => matchExpectationsById(trx, ids, NOW, settings));
            for (const i of permuted(items, seed)) {
              await oneByOne.db.transaction().execute(async (trx) => {
                await settle(trx, i);
                await matchSettledItems(trx, [i], NOW, settings);
              });
            }
            const expected = await matchingSnapshot(atOnce.db);
            matchesSeen += expected.matches.length;
            expect(await matchingSnapshot(oneByOne.db)).toEqual(expected);
          } finally {
            await atOnce.cleanup();
            await oneByOne.cleanup();
          }
        },
      ),
      { numRuns: RUNS },
    );
    // The property is not vacuous: the random sets do match.
    expect(matchesSeen).toBeGreaterThan(0);
  });
});
