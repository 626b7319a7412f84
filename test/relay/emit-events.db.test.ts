/**
 * The relay's exactly-once emission (issue 23, docs/relay.md "The guarantee"): a committed
 * change has its events, with the documented data; a rolled-back one has none; the same state
 * twice emits once; each enabled endpoint subscribed to a type gets one pending delivery.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyBatch, journalsFor, type BatchEntry } from '../../src/ledger/index.ts';
import { emitRelayEvents, itemEventsOf } from '../../src/relay/index.ts';
import type { PaymentIntent, Transfer } from '../../src/upstream/index.ts';
import { at, paymentIntentFixture, transferFixture } from '../support/resource-fixtures.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import {
  addEndpointRow,
  deliveredTypes,
  messageProblems,
  storedEvents,
} from './support/relay-schema.ts';

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.cleanup();
  database = undefined;
});

function entry(state: Transfer | PaymentIntent, observedAt: string): BatchEntry {
  const fetched: BatchEntry['fetched'] = state.id.startsWith('tr_')
    ? { kind: 'transfer', state: state as Transfer }
    : { kind: 'payment_intent', state: state as PaymentIntent };
  return { fetched, observation: { via: 'poll', observedAt } };
}

/** Applies states and emits their events in one transaction, as the sync batch does. */
async function applyAndEmit(db: TestDatabase, states: (Transfer | PaymentIntent)[], when: string) {
  return db.db.transaction().execute(async (trx) => {
    const outcomes = await applyBatch(
      trx,
      states.map((state) => entry(state, when)),
    );
    return emitRelayEvents(trx, itemEventsOf(outcomes, 'sandbox'), when);
  });
}

describe(`relay emission on ${testDialect()}`, () => {
  it('a committed change emits one event per status reached, with the documented data', async () => {
    database = await freshDatabase();
    const pending = transferFixture({ status: 'pending', updatedAt: at(1) });
    const successful = transferFixture({ status: 'successful', updatedAt: at(5) });

    await applyAndEmit(database, [pending], at(2));
    await applyAndEmit(database, [successful], at(6));

    const events = await storedEvents(database.db);
    expect(events.map((e) => [e.type, e.subject, e.dedupeKey])).toEqual([
      ['transfer.status_changed', 'transfer:tr_1', 'transfer:tr_1:pending'],
      ['transfer.succeeded', 'transfer:tr_1', 'transfer:tr_1:successful'],
    ]);
    const journals = await journalsFor(database.db, 'transfer', 'tr_1');
    expect(journals).toHaveLength(1);
    const [first, second] = events.map((e) => e.message);
    expect(first).toMatchObject({
      type: 'transfer.status_changed',
      timestamp: at(2),
      environment: 'sandbox',
      data: { status: 'pending', previousStatus: null, journalIds: [] },
    });
    expect(second!.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(second!.id).not.toBe(first!.id);
    expect(second).toEqual({
      id: second!.id,
      type: 'transfer.succeeded',
      timestamp: at(6),
      environment: 'sandbox',
      data: {
        object: 'transfer',
        id: 'tr_1',
        status: 'successful',
        previousStatus: 'pending',
        amount: 10000,
        currency: 'XOF',
        failure: null,
        journalIds: [journals[0]!.id],
        createdAt: at(0),
        updatedAt: at(5),
        mode: 'sandbox',
        merchantId: 'mch_1',
        reference: 'payout-1',
        providerReference: 'prov-1',
        isIrt: false,
        fees: [{ id: 'fee_1', amount: 100, currency: 'XOF', label: 'fee' }],
      },
    });
    for (const event of events) expect(messageProblems(event.message)).toEqual([]);
  });

  it('a failed payment intent emits payment_intent.failed with its failure', async () => {
    database = await freshDatabase();
    await applyAndEmit(
      database,
      [
        paymentIntentFixture({
          status: 'failed',
          lastPaymentFailure: { code: 'insufficient_funds', message: 'not enough money' },
        } as Partial<PaymentIntent>),
      ],
      at(3),
    );
    const [event] = await storedEvents(database.db);
    expect(event!.type).toBe('payment_intent.failed');
    expect(event!.message.data).toMatchObject({
      object: 'payment_intent',
      status: 'failed',
      previousStatus: null,
      purchaseReference: 'order-1',
      customerReference: 'cust-1',
      failure: { code: 'insufficient_funds', message: 'not enough money' },
    });
    expect(messageProblems(event!.message)).toEqual([]);
  });

  it('a change rolled back emits nothing', async () => {
    database = await freshDatabase();
    await addEndpointRow(database.db, { endpointId: 'ep_all', eventTypes: null });
    const db = database;
    await expect(
      db.db.transaction().execute(async (trx) => {
        const outcomes = await applyBatch(trx, [
          entry(transferFixture({ status: 'successful' }), at(2)),
        ]);
        const emitted = await emitRelayEvents(trx, itemEventsOf(outcomes, 'sandbox'), at(2));
        expect(emitted).toEqual({ events: 1, deliveries: 1 });
        throw new Error('the process dies before the commit');
      }),
    ).rejects.toThrow('the process dies');
    expect(await storedEvents(db.db)).toEqual([]);
    expect(await deliveredTypes(db.db)).toEqual(new Map());
    expect(await db.db.selectFrom('transfers').select('id').execute()).toEqual([]);
  });

  it('the same state applied twice, an older one, or a newer one with the same status emit once', async () => {
    database = await freshDatabase();
    const endpoint = await addEndpointRow(database.db, { endpointId: 'ep_all', eventTypes: null });
    const created = transferFixture({ status: 'created', updatedAt: at(2) });
    expect(await applyAndEmit(database, [created], at(3))).toEqual({ events: 1, deliveries: 1 });
    // A replayed webhook, a retried job, a second worker: the same state again.
    expect(await applyAndEmit(database, [created], at(4))).toEqual({ events: 0, deliveries: 0 });
    // Newer, but the status did not change (the service touched the item).
    const touched = transferFixture({ status: 'created', updatedAt: at(5) });
    expect(await applyAndEmit(database, [touched], at(6))).toEqual({ events: 0, deliveries: 0 });
    // Older than the mirror: ignored.
    const older = transferFixture({ status: 'pending', updatedAt: at(1) });
    expect(await applyAndEmit(database, [older], at(7))).toEqual({ events: 0, deliveries: 0 });
    // Several states of one item in one batch: one event per status, in order.
    const pending = transferFixture({ status: 'pending', updatedAt: at(8) });
    const done = transferFixture({ status: 'successful', updatedAt: at(9) });
    expect(await applyAndEmit(database, [pending, done, done], at(10))).toEqual({
      events: 2,
      deliveries: 2,
    });
    const events = await storedEvents(database.db);
    expect(events.map((e) => `${e.type} ${String(e.message.data.status)}`)).toEqual([
      'transfer.status_changed created',
      'transfer.status_changed pending',
      'transfer.succeeded successful',
    ]);
    expect((await deliveredTypes(database.db)).get(endpoint)).toHaveLength(3);
  });

  it('each enabled endpoint gets deliveries for the types it subscribes to; a disabled one none', async () => {
    database = await freshDatabase();
    const db = database.db;
    const transfers = await addEndpointRow(db, {
      endpointId: 'ep_transfers',
      eventTypes: ['transfer.*'],
    });
    const payments = await addEndpointRow(db, {
      endpointId: 'ep_paid',
      eventTypes: ['payment_intent.succeeded', 'day.verdict'],
    });
    const disabled = await addEndpointRow(db, {
      endpointId: 'ep_off',
      eventTypes: null,
      status: 'disabled',
    });
    await applyAndEmit(
      database,
      [transferFixture({ status: 'pending' }), paymentIntentFixture({ status: 'processing' })],
      at(2),
    );
    await applyAndEmit(
      database,
      [
        transferFixture({ status: 'failed', updatedAt: at(4) }),
        paymentIntentFixture({ status: 'successful', updatedAt: at(4) }),
      ],
      at(5),
    );
    const byEndpoint = await deliveredTypes(db);
    expect(byEndpoint.get(transfers)).toEqual(['transfer.status_changed', 'transfer.failed']);
    expect(byEndpoint.get(payments)).toEqual(['payment_intent.succeeded']);
    expect(byEndpoint.has(disabled)).toBe(false);
    const rows = await db
      .selectFrom('relay_deliveries')
      .innerJoin('relay_events', 'relay_events.id', 'relay_deliveries.event_id')
      .select([
        'relay_deliveries.subject as deliverySubject',
        'relay_events.subject as eventSubject',
        'relay_deliveries.next_attempt_at as due',
        'relay_deliveries.attempts as attempts',
        'relay_events.created_at as emittedAt',
      ])
      .execute();
    for (const row of rows) {
      expect(row.deliverySubject).toBe(row.eventSubject);
      expect(row.due).toBe(row.emittedAt);
      expect(row.attempts).toBe(0);
    }
  });
});
