import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Observation } from '../../src/ledger/index.ts';
import {
  insertMirrorIfNew,
  updateMirror,
  type MirrorColumns,
  type MirrorTable,
} from '../../src/ledger/mirror-writer.ts';
import { paymentIntentColumns } from '../../src/ledger/payment-intent.repository.ts';
import { paymentRefundColumns, transferRefundColumns } from '../../src/ledger/refund.repository.ts';
import { transferColumns } from '../../src/ledger/transfer.repository.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import {
  at,
  paymentIntentFixture,
  paymentRefundFixture,
  refundFixture,
  seen,
  transferFixture,
} from './support/ledger-fixtures.ts';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

/** One mirror table, its columns at a given service version, and how to read the row back. */
interface WriterCase {
  readonly name: string;
  readonly table: MirrorTable;
  columns(status: string, updatedAt: string, observation: Observation): MirrorColumns[MirrorTable];
  readonly where: Record<string, string>;
}

const cases: readonly WriterCase[] = [
  {
    name: 'payment intent',
    table: 'payment_intents',
    columns: (status, updatedAt, observation) =>
      paymentIntentColumns(paymentIntentFixture({ updatedAt }), status, observation),
    where: { id: 'pi_1' },
  },
  {
    name: 'transfer',
    table: 'transfers',
    columns: (status, updatedAt, observation) =>
      transferColumns(transferFixture({ updatedAt }), status, observation),
    where: { id: transferFixture().id },
  },
  {
    name: 'refund of a transfer',
    table: 'refunds',
    columns: (status, updatedAt, observation) =>
      transferRefundColumns(refundFixture({ updatedAt }), status, observation),
    where: { kind: 'refund', id: String(refundFixture().id) },
  },
  {
    name: 'payment refund',
    table: 'refunds',
    columns: (status, updatedAt, observation) =>
      paymentRefundColumns(paymentRefundFixture({ updatedAt }), status, observation),
    where: { kind: 'payment_refund', id: String(paymentRefundFixture().id) },
  },
];

async function readRow(c: WriterCase) {
  let query = database.db
    .selectFrom(c.table)
    .select(['status', 'updated_at', 'first_seen_at', 'last_synced_at']);
  for (const [column, value] of Object.entries(c.where)) {
    query = query.where(column as 'id', '=', value);
  }
  return query.execute();
}

describe(`the one mirror writer on ${testDialect()}`, () => {
  test.each(cases)('$name: inserts once, then only a newer version overwrites', async (c) => {
    const db = database.db;
    const first = seen({ observedAt: at(20) });
    expect(await insertMirrorIfNew(db, c.table, c.columns('pending', at(10), first))).toBe(true);
    expect(await insertMirrorIfNew(db, c.table, c.columns('failed', at(10), first))).toBe(false);
    expect(await readRow(c)).toEqual([
      { status: 'pending', updated_at: at(10), first_seen_at: at(20), last_synced_at: at(20) },
    ]);

    await updateMirror(db, c.table, c.columns('successful', at(30), seen({ observedAt: at(40) })));
    const newer = [
      { status: 'successful', updated_at: at(30), first_seen_at: at(20), last_synced_at: at(40) },
    ];
    expect(await readRow(c)).toEqual(newer);

    // The version guard: an older or equal state never overwrites a newer one.
    await updateMirror(db, c.table, c.columns('failed', at(10), seen({ observedAt: at(50) })));
    await updateMirror(db, c.table, c.columns('failed', at(30), seen({ observedAt: at(50) })));
    expect(await readRow(c)).toEqual(newer);
  });
});
