/**
 * The item lists (`paysync list`, `GET /api/v1/payment-intents|transfers|refunds`) read the newest
 * items first with a limit. On a year of books (issue 22, `bench:big-books`, 2 million items) the
 * refund list read every refund of its kind and sorted it (749 ms against 23 ms on one day's
 * books) because no index was led by kind and then updated_at; migration 0017 adds it. The plan
 * of each list must walk an index in order instead of sorting the table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listResources, type LedgerResourceKind } from '../../src/ledger/index.ts';
import { planOf, statementsOf } from '../support/query-plan.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await freshDatabase();
});

afterAll(async () => {
  await database?.close();
});

describe(`the item lists' plans on ${testDialect()}`, () => {
  const kinds: LedgerResourceKind[] = ['payment_intent', 'transfer', 'refund', 'payment_refund'];
  for (const kind of kinds) {
    it(`the newest ${kind} items are read in index order, not sorted whole`, async () => {
      const [statement] = await statementsOf(database, (db) =>
        listResources(db, kind, { limit: 100 }),
      );
      const plan = await planOf(database, statement!, { noSort: true });
      if (testDialect() === 'sqlite') {
        expect(plan).not.toMatch(/^SCAN (payment_intents|transfers|refunds)$/m);
        // Sorting the last term (id) among equal times is fine; sorting the whole table is not.
        expect(plan).not.toContain('USE TEMP B-TREE FOR ORDER BY');
      } else {
        // An incremental sort of equal times by id is fine; a Sort node over the rows is not.
        expect(plan).not.toMatch(/Seq Scan|^\s*(->\s+)?Sort\s+\(/m);
      }
    });
  }
});
