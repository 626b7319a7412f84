import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as m0006 from '../../migrations/0006_mirror_polls.ts';
import { applyPaymentIntent, applyRefund, applyTransfer } from '../../src/ledger/index.ts';
import {
  at,
  paymentIntentFixture,
  refundFixture,
  transferFixture,
} from '../support/resource-fixtures.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

describe('migration 0006 on a ledger that already has items', () => {
  it('makes every non-terminal item due at once and leaves terminal ones unpolled', async () => {
    const seen = { via: 'webhook' as const, observedAt: at(100) };
    await applyTransfer(
      database.db,
      transferFixture({ id: 'tr_pending', status: 'pending', reference: 'r-1', updatedAt: at(5) }),
      seen,
    );
    await applyTransfer(
      database.db,
      transferFixture({ id: 'tr_done', status: 'successful', reference: 'r-2', updatedAt: at(6) }),
      seen,
    );
    await applyPaymentIntent(
      database.db,
      paymentIntentFixture({ id: 'pi_waiting', status: 'processing', updatedAt: at(7) }),
      seen,
    );
    await applyRefund(
      database.db,
      refundFixture({ id: 77, status: 'pending_manual', updatedAt: at(8) }),
      seen,
    );
    // As if the items had been mirrored before the migration: no polling rows yet.
    await database.db.schema.dropTable('mirror_polls').execute();
    await m0006.up(database.db as unknown as Kysely<unknown>);

    const rows = await database.db
      .selectFrom('mirror_polls')
      .select(['resource_kind', 'resource_id', 'reference', 'next_poll_at'])
      .orderBy('resource_kind')
      .orderBy('resource_id')
      .execute();
    expect(rows).toEqual([
      {
        resource_kind: 'payment_intent',
        resource_id: 'pi_waiting',
        reference: 'order-1',
        next_poll_at: at(7),
      },
      { resource_kind: 'refund', resource_id: '77', reference: null, next_poll_at: at(8) },
      { resource_kind: 'transfer', resource_id: 'tr_done', reference: 'r-2', next_poll_at: null },
      {
        resource_kind: 'transfer',
        resource_id: 'tr_pending',
        reference: 'r-1',
        next_poll_at: at(5),
      },
    ]);
  });
});
