import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  accountBalances,
  applyPaymentIntent,
  applyPaymentRefund,
  applyRefund,
  applyTransfer,
  countsByStatus,
  listResources,
  openDiscrepancies,
  recordDiscrepancy,
  resolveDiscrepancy,
  transferReferenceOf,
} from '../../src/ledger/index.ts';
import { findResource } from '../../src/resource-view/index.ts';
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

async function seedBooks(db: TestDatabase['db']) {
  await applyPaymentIntent(
    db,
    paymentIntentFixture({ id: 'pi_1', status: 'successful', amount: 50000 }),
    seen(),
  );
  await applyPaymentIntent(db, paymentIntentFixture({ id: 'pi_2', status: 'failed' }), seen());
  await applyTransfer(
    db,
    transferFixture({ id: 'tr_1', status: 'successful', amount: 10000 }),
    seen(),
  );
  await applyTransfer(
    db,
    transferFixture({
      id: 'tr_2',
      reference: 'payout-2',
      status: 'failed',
      failureCause: { code: 'invalid_msisdn', message: 'Recipient number is not valid' },
    }),
    seen(),
  );
  await applyRefund(
    db,
    refundFixture({ id: 7, transactionId: 'tr_1', status: 'successful', amount: 10000 }),
    seen(),
  );
  await applyPaymentRefund(
    db,
    paymentRefundFixture({ id: 7, paymentIntentId: 'pi_1', status: 'successful', amount: 2000 }),
    seen(),
  );
}

describe(`read side on ${testDialect()}`, () => {
  test('accountBalances sums every line per account and currency', async () => {
    await seedBooks(database.db);
    expect(await accountBalances(database.db)).toEqual([
      { account: 'expenses:transfer-fees', currency: 'XOF', balance: 100 },
      { account: 'income:payments', currency: 'XOF', balance: -50000 },
      { account: 'payouts:recipients', currency: 'XOF', balance: 0 },
      { account: 'refunds:customers', currency: 'XOF', balance: 2000 },
      { account: 'service:collection', currency: 'XOF', balance: 48000 },
      { account: 'service:transfer', currency: 'XOF', balance: -100 },
    ]);
  });

  test('countsByStatus counts each kind by its mirror status', async () => {
    await seedBooks(database.db);
    expect(await countsByStatus(database.db)).toEqual([
      { kind: 'payment_intent', status: 'failed', count: 1 },
      { kind: 'payment_intent', status: 'successful', count: 1 },
      { kind: 'payment_refund', status: 'successful', count: 1 },
      { kind: 'refund', status: 'successful', count: 1 },
      { kind: 'transfer', status: 'failed', count: 1 },
      { kind: 'transfer', status: 'successful', count: 1 },
    ]);
  });

  test('listResources filters by kind, status and since', async () => {
    const db = database.db;
    await applyTransfer(
      db,
      transferFixture({ id: 'tr_a', status: 'pending', updatedAt: at(1) }),
      seen(),
    );
    await applyTransfer(
      db,
      transferFixture({ id: 'tr_b', status: 'failed', updatedAt: at(2) }),
      seen(),
    );
    await applyTransfer(
      db,
      transferFixture({ id: 'tr_c', status: 'pending', updatedAt: at(3) }),
      seen(),
    );
    expect((await listResources(db, 'transfer')).map((r) => r.id)).toEqual([
      'tr_c',
      'tr_b',
      'tr_a',
    ]);
    expect((await listResources(db, 'transfer', { status: 'pending' })).map((r) => r.id)).toEqual([
      'tr_c',
      'tr_a',
    ]);
    expect((await listResources(db, 'transfer', { since: at(2) })).map((r) => r.id)).toEqual([
      'tr_c',
      'tr_b',
    ]);
    expect((await listResources(db, 'transfer', { limit: 1 })).map((r) => r.id)).toEqual(['tr_c']);
    expect(await listResources(db, 'refund')).toEqual([]);
  });

  test('findResource shows the mirror, history, journals, discrepancies and inbox events', async () => {
    const db = database.db;
    const inbox = (dedupe: string, fields: { resource_id?: string; resource_reference?: string }) =>
      db
        .insertInto('webhook_inbox')
        .values({
          dedupe_key: dedupe,
          event_id: dedupe,
          event_type: 'transfer.updated',
          raw_body: Buffer.from(`{"id":"${dedupe}"}`),
          headers: '{}',
          received_at: at(1),
          last_error: null,
          processed_at: null,
          resource_kind: 'transfer',
          ...fields,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    const byId = await inbox('evt_1', { resource_id: 'tr_2' });
    const byReference = await inbox('evt_2', { resource_reference: 'payout-2' });
    await inbox('evt_other', { resource_id: 'tr_9' });
    await seedBooks(db);

    const view = await findResource(db, 'tr_2');
    expect(view?.record).toMatchObject({
      kind: 'transfer',
      id: 'tr_2',
      status: 'failed',
      reference: 'payout-2',
      isIrt: false,
      failureCode: 'invalid_msisdn',
      failureMessage: 'Recipient number is not valid',
      fees: [{ id: 'fee_1', amount: 100, currency: 'XOF', label: 'fee' }],
    });
    expect(view?.history).toHaveLength(1);
    expect(view?.journals).toEqual([]);
    expect(view?.inboxEvents.map((e) => [e.inboxId, e.eventId, e.body])).toEqual([
      [byId.id, 'evt_1', '{"id":"evt_1"}'],
      [byReference.id, 'evt_2', '{"id":"evt_2"}'],
    ]);
    expect(await findResource(db, 'tr_nope')).toBeUndefined();
  });

  test('findResource tells the two refund kinds apart', async () => {
    await seedBooks(database.db);
    expect((await findResource(database.db, '7'))?.record.kind).toBe('refund');
    expect((await findResource(database.db, 'payment_refund:7'))?.record).toMatchObject({
      kind: 'payment_refund',
      originalId: 'pi_1',
      amount: 2000,
    });
    expect((await findResource(database.db, '7', { kind: 'payment_refund' }))?.record.kind).toBe(
      'payment_refund',
    );
    expect((await findResource(database.db, 'pi_1'))?.journals.map((j) => j.settlementKey)).toEqual(
      ['settlement-1'],
    );
  });

  test('transferReferenceOf reads the reference from the mirror', async () => {
    await seedBooks(database.db);
    expect(await transferReferenceOf(database.db, 'tr_2')).toBe('payout-2');
    expect(await transferReferenceOf(database.db, 'tr_9')).toBeUndefined();
  });

  test('recordDiscrepancy records once per dedupe key, keeps the raw body, and can be resolved', async () => {
    const db = database.db;
    const input = {
      kind: 'contract_error',
      resourceKind: 'transfer',
      resourceId: 'tr_5',
      detail: { operation: 'listTransfers', issues: ['amount: must be an integer'] },
      rawBody: Buffer.from('[{"id":"tr_5","amount":10.5}]'),
      inboxId: 3,
      createdAt: at(9),
    };
    const first = await recordDiscrepancy(db, input);
    const again = await recordDiscrepancy(db, {
      ...input,
      createdAt: at(10),
      detail: { issues: ['amount: must be an integer'], operation: 'listTransfers' },
    });
    expect(first.isNew).toBe(true);
    expect(again).toEqual({ isNew: false, discrepancy: first.discrepancy });
    expect(first.discrepancy).toMatchObject({
      kind: 'contract_error',
      rawBody: '[{"id":"tr_5","amount":10.5}]',
      inboxId: 3,
      createdAt: at(9),
      resolvedAt: null,
    });
    const other = await recordDiscrepancy(db, {
      kind: 'unknown_upstream_resource',
      resourceKind: 'transfer',
      resourceId: 'tr_6',
      createdAt: at(15),
    });
    expect((await openDiscrepancies(db)).map((d) => d.id)).toEqual([
      other.discrepancy.id,
      first.discrepancy.id,
    ]);
    expect(await openDiscrepancies(db, { limit: 1 })).toHaveLength(1);

    expect(await resolveDiscrepancy(db, first.discrepancy.id, at(20))).toBe(true);
    expect(await resolveDiscrepancy(db, first.discrepancy.id, at(21))).toBe(false);
    expect((await openDiscrepancies(db)).map((d) => d.id)).toEqual([other.discrepancy.id]);
  });
});
