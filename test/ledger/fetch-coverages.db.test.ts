import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  fetchCoverage,
  recordFetchCoverage,
  recordFetchCoverages,
} from '../../src/ledger/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

const NOW = '2026-03-01T12:00:00.000Z';

describe(`recordFetchCoverages on ${testDialect()}`, () => {
  test('records what a batch of fetches covered, as one call per item would', async () => {
    const db = database.db;
    // tr_old: covered up to 50 with a poll asked for before the batch's fetches began;
    // tr_late: a poll asked for after they began, which this batch does not answer.
    await recordFetchCoverage(
      db,
      { kind: 'transfer', id: 'tr_old' },
      { upToInboxId: 50, fetchStartedAt: NOW },
    );
    await recordFetchCoverage(
      db,
      { kind: 'transfer', id: 'tr_late' },
      { upToInboxId: 5, fetchStartedAt: NOW },
    );
    await db
      .updateTable('mirror_polls')
      .set({ poll_requested_at: '2026-03-01T12:00:01.000Z' })
      .where('resource_id', '=', 'tr_old')
      .execute();
    await db
      .updateTable('mirror_polls')
      .set({ poll_requested_at: '2026-03-01T12:00:09.000Z' })
      .where('resource_id', '=', 'tr_late')
      .execute();

    await recordFetchCoverages(
      db,
      [
        { kind: 'transfer', id: 'tr_old' },
        { kind: 'transfer', id: 'tr_late', reference: 'payout-9' },
        { kind: 'payment_intent', id: 'pi_new', reference: 'order-1' },
      ],
      { upToInboxId: 20, fetchStartedAt: '2026-03-01T12:00:05.000Z' },
    );

    const later = '2026-03-01T12:00:06.000Z';
    // Coverage never moves back (50 stays), the answered poll is cleared, the later one kept.
    expect(await fetchCoverage(db, { kind: 'transfer', id: 'tr_old' }, later)).toEqual({
      coveredInboxId: 50,
      pollCalledFor: false,
      reference: undefined,
    });
    expect(await fetchCoverage(db, { kind: 'transfer', id: 'tr_late' }, later)).toEqual({
      coveredInboxId: 20,
      pollCalledFor: true,
      reference: 'payout-9',
    });
    // A new item is covered and has no poll asked for.
    expect(
      await fetchCoverage(db, { kind: 'payment_intent', reference: 'order-1' }, later),
    ).toEqual({
      coveredInboxId: 20,
      pollCalledFor: false,
      reference: 'order-1',
    });
  });
});
