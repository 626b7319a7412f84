import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  markOverdue,
  matchExpectationsById,
  matchSettledItems,
  type MatchingSettings,
} from '../../src/expectations/index.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { expectation, item, NOW } from './match-fixtures.ts';
import {
  ENVIRONMENT,
  insertExpectation,
  matchingSnapshot,
  settle,
} from './support/matching-rows.ts';

const settings: MatchingSettings = { environment: ENVIRONMENT, allExpected: 'off' };
const fields = (overrides: Parameters<typeof expectation>[0] = {}) => {
  const { id: _id, ...rest } = expectation(overrides);
  return rest;
};

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

async function settleAndMatch(settled: ReturnType<typeof item>, options = settings) {
  return database.db.transaction().execute(async (trx) => {
    await settle(trx, settled);
    return matchSettledItems(trx, [settled], NOW, options);
  });
}

async function history(id: number) {
  const rows = await database.db
    .selectFrom('expectation_history')
    .select(['change', 'source', 'before', 'after'])
    .where('expectation', '=', id)
    .orderBy('id')
    .execute();
  return rows.map((r) => `${r.change}:${r.source}:${r.after}`);
}

describe('matching settled items in the pipeline transaction', () => {
  test('a transfer that settles matches its expectation, once', async () => {
    const id = await insertExpectation(database.db, fields({ reference: 'payout-1' }));
    await settleAndMatch(item({ id: 'tr_1', reference: 'payout-1' }));

    const seen = await matchingSnapshot(database.db);
    expect(seen.matches).toEqual([
      {
        expectation: id,
        item_kind: 'transfer',
        item_id: 'tr_1',
        amount: 25000,
        rule: 'reference',
        late: 0,
      },
    ]);
    expect(seen.states).toEqual([
      { id, expectation_id: 'E-1', state: 'matched', matched_amount: 25000 },
    ]);
    expect(seen.breaks).toEqual([]);
    expect(await history(id)).toEqual([
      'matched:matching:{"state":"matched","matched_amount":25000}',
    ]);

    // The same item synced again: nothing is written.
    const again = await database.db
      .transaction()
      .execute((trx) => matchSettledItems(trx, [{ kind: 'transfer', id: 'tr_1' }], NOW, settings));
    expect(again).toEqual({
      matchesInserted: 0,
      matchesDeleted: 0,
      matchesUpdated: 0,
      expectationsChanged: 0,
      historyRows: 0,
      breaksOpened: 0,
      breaksUpdated: 0,
      breaksCleared: 0,
    });
    expect(await matchingSnapshot(database.db)).toEqual(seen);
    expect(await history(id)).toHaveLength(1);
  });

  test('an expectation added after its item settled is matched by matchExpectationsById', async () => {
    await database.db.transaction().execute((trx) => settle(trx, item({ id: 'tr_4' })));
    const id = await insertExpectation(database.db, fields());
    await database.db
      .transaction()
      .execute((trx) => matchExpectationsById(trx, [id], NOW, settings));
    const seen = await matchingSnapshot(database.db);
    expect(seen.matches).toEqual([
      expect.objectContaining({ item_id: 'tr_4', rule: 'amount_window' }),
    ]);
    expect(seen.states[0]!.state).toBe('matched');
  });

  test('a payment intent matches by its purchase reference; its refund is reversed_after_match', async () => {
    const id = await insertExpectation(
      database.db,
      fields({ direction: 'in', reference: 'order-4711' }),
    );
    await settleAndMatch(
      item({ kind: 'payment_intent', id: 'pi_1', direction: 'in', reference: 'order-4711' }),
    );
    await settleAndMatch(
      item({
        kind: 'payment_refund',
        id: '41',
        direction: 'out',
        reference: null,
        originalId: 'pi_1',
        amount: 2000,
        settledAt: '2026-03-06T00:00:00.000Z',
      }),
    );
    const seen = await matchingSnapshot(database.db);
    expect(seen.states[0]).toMatchObject({ id, state: 'matched' });
    expect(seen.breaks).toEqual([
      {
        dedupe_key: `reversed_after_match:${id}:payment_refund/41`,
        kind: 'reversed_after_match',
        difference: -2000,
        explanation: expect.stringContaining('payment refund 41 refunded 2,000 XOF'),
      },
    ]);
  });
});

describe('many-to-one as items settle', () => {
  test('a transfer of the sum of a group pays every member, each its own amount', async () => {
    const first = await insertExpectation(
      database.db,
      fields({ amount_min: 10000, amount_max: 10000, match_group: 'run-5' }),
    );
    const second = await insertExpectation(
      database.db,
      fields({ expectation_id: 'E-2', amount_min: 20000, amount_max: 20000, match_group: 'run-5' }),
    );
    await settleAndMatch(item({ id: 'tr_5', reference: 'merged-payout', amount: 30000 }));
    const seen = await matchingSnapshot(database.db);
    expect(seen.matches.map((m) => [m.expectation, m.item_id, m.amount, m.rule])).toEqual([
      [first, 'tr_5', 10000, 'amount_window'],
      [second, 'tr_5', 20000, 'amount_window'],
    ]);
    expect(seen.states.map((s) => s.state)).toEqual(['matched', 'matched']);
  });
});

describe('breaks are kept by dedupe key', () => {
  test('a break no longer found is cleared by matching; one resolved by hand is left alone', async () => {
    const id = await insertExpectation(database.db, fields({ reference: 'p-1' }));
    await settleAndMatch(item({ id: 'tr_1', reference: 'p-1', amount: 24000 }));
    await settleAndMatch(
      item({ id: 'tr_2', reference: 'p-1', settledAt: '2026-03-06T00:00:00.000Z' }),
    );
    expect((await matchingSnapshot(database.db)).breaks.map((b) => b.dedupe_key)).toEqual([
      `amount_mismatch:${id}:transfer/tr_1`,
      `duplicate:${id}:transfer/tr_2`,
    ]);
    // Finance resolves the duplicate by hand, then corrects the expected amount.
    await database.db
      .updateTable('expectation_breaks')
      .set({
        state: 'resolved',
        resolved_by: 'alice',
        resolved_at: NOW,
        resolution_reason: 'refunded',
      })
      .where('kind', '=', 'duplicate')
      .execute();
    await database.db
      .updateTable('expectations')
      .set({ amount_min: 24000, amount_max: 24000 })
      .where('id', '=', id)
      .execute();
    await database.db
      .transaction()
      .execute((trx) => matchExpectationsById(trx, [id], NOW, settings));

    const rows = await database.db
      .selectFrom('expectation_breaks')
      .select(['kind', 'state', 'resolved_by', 'resolution_reason'])
      .orderBy('kind')
      .execute();
    expect(rows).toEqual([
      {
        kind: 'amount_mismatch',
        state: 'resolved',
        resolved_by: 'matching',
        resolution_reason: 'cleared by a later match',
      },
      { kind: 'duplicate', state: 'resolved', resolved_by: 'alice', resolution_reason: 'refunded' },
    ]);
    expect((await matchingSnapshot(database.db)).states[0]).toMatchObject({
      state: 'matched',
      matched_amount: 24000,
    });
  });

  test('unexpected, when all money out is expected, is cleared once an expectation claims it', async () => {
    const strict: MatchingSettings = { ...settings, allExpected: 'out' };
    await settleAndMatch(item({ id: 'tr_8' }), strict);
    expect((await matchingSnapshot(database.db)).breaks).toEqual([
      expect.objectContaining({ dedupe_key: 'unexpected:-:transfer/tr_8', difference: 25000 }),
    ]);
    const id = await insertExpectation(database.db, fields());
    await database.db.transaction().execute((trx) => matchExpectationsById(trx, [id], NOW, strict));
    expect((await matchingSnapshot(database.db)).breaks).toEqual([]);
  });
});

describe('markOverdue', () => {
  test('an open expectation past its window becomes overdue with a missing break, once', async () => {
    const late = await insertExpectation(
      database.db,
      fields({ window_to: '2026-03-09T00:00:00.000Z' }),
    );
    const current = await insertExpectation(database.db, fields({ expectation_id: 'E-2' }));
    expect(await markOverdue(database.db, NOW, settings)).toEqual({ checked: 1, overdue: 1 });
    const seen = await matchingSnapshot(database.db);
    expect(seen.states.map((s) => [s.id, s.state])).toEqual([
      [late, 'overdue'],
      [current, 'open'],
    ]);
    expect(seen.breaks).toEqual([
      expect.objectContaining({
        dedupe_key: `missing:${late}:-`,
        kind: 'missing',
        difference: -25000,
      }),
    ]);
    expect(await history(late)).toEqual([
      'overdue:matching:{"state":"overdue","matched_amount":0}',
    ]);
    expect(await markOverdue(database.db, NOW, settings)).toEqual({ checked: 0, overdue: 0 });

    // An item settled after a window is not the amount rule's to give it: the open one takes it.
    await settleAndMatch(item({ id: 'tr_9', settledAt: '2026-03-09T12:00:00.000Z' }));
    const after = await matchingSnapshot(database.db);
    expect(after.states.map((s) => s.state)).toEqual(['overdue', 'matched']);
    expect(after.matches.map((m) => [m.expectation, m.item_id])).toEqual([[current, 'tr_9']]);
  });
});
