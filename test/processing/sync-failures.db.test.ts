import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent } from '../../src/inbox/index.ts';
import { classifyEvent } from '../../src/ingest/index.ts';
import { openDiscrepancies, journalsFor } from '../../src/ledger/index.ts';
import { findResource } from '../../src/resource-view/index.ts';
import { enqueueIngest } from '../../src/queues/index.ts';
import { syncResource } from '../../src/reconcile/index.ts';
import { syncAttemptsTotal } from '../../src/reconcile/reconcile-metrics.ts';
import { testDialect } from '../support/test-database.ts';
import { createDaemonFixture, type DaemonFixture } from './support/daemon-fixture.ts';
import { createSyncContext, type SyncContext } from './support/sync-context.ts';
import { until } from '../support/until.ts';

const MISSING_INTENT = 'pi_000000000000000000000000';

let fixture: DaemonFixture | undefined;
let context: SyncContext | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  await context?.cleanup();
  fixture = undefined;
  context = undefined;
});

/** Stores a webhook naming `resource` and hands it to the daemon's ingest queue. */
async function deliver(f: DaemonFixture, body: unknown): Promise<number> {
  const { insertInboxEvent } = await import('../../src/inbox/index.ts');
  const { inboxId } = await insertInboxEvent(f.database.db, {
    receivedAt: new Date(),
    dedupeKey: `test:${Math.random()}`,
    eventId: undefined,
    eventType: undefined,
    rawBody: Buffer.from(JSON.stringify(body)),
    headers: {},
  });
  await enqueueIngest(f.daemon!.queues, inboxId);
  return inboxId;
}

async function settledRow(f: DaemonFixture, inboxId: number, ms = 20_000) {
  // The row as it stands once settled, or after `ms` (the caller's assertions say how it is).
  let row = await findInboxEvent(f.database.db, inboxId);
  await until(async () => (row = await findInboxEvent(f.database.db, inboxId)), {
    accept: (r) => r !== undefined && r.status !== 'received' && r.status !== 'processing',
    message: `inbox row ${inboxId} settled`,
    timeoutMs: ms,
  }).catch(() => undefined);
  return row;
}

async function attempts(outcome: string): Promise<number> {
  const metric = await syncAttemptsTotal.get();
  return metric.values
    .filter((v) => v.labels.kind === 'payment_intent' && v.labels.outcome === outcome)
    .reduce((sum, v) => sum + v.value, 0);
}

describe(`sync failure policy on ${testDialect()}`, () => {
  it('retries a 404 a few times, then records unknown_upstream_resource and completes', async () => {
    fixture = await createDaemonFixture();
    await fixture.startDaemon(['workers']);
    const retriesBefore = await attempts('retry');
    const inboxId = await deliver(fixture, {
      type: 'payment_intent.updated',
      data: { object: { id: MISSING_INTENT } },
    });
    const row = await settledRow(fixture, inboxId);
    expect(row?.status).toBe('failed');
    expect(row?.lastError).toMatch(/^unknown_upstream_resource: the service does not know/);
    expect((await attempts('retry')) - retriesBefore).toBe(2);
    const [discrepancy] = await openDiscrepancies(fixture.database.db);
    expect(discrepancy).toMatchObject({
      kind: 'unknown_upstream_resource',
      resourceKind: 'payment_intent',
      resourceId: MISSING_INTENT,
      inboxId,
      detail: { operation: 'getPaymentIntent', status: 404, attempts: 3 },
    });
    expect(
      await fixture.daemon!.queues.sync.getJobCounts('failed', 'delayed', 'waiting'),
    ).toMatchObject({
      failed: 0,
      delayed: 0,
      waiting: 0,
    });
  }, 30_000);

  it('records a contract break with the raw body, books nothing, and fails the inbox row', async () => {
    fixture = await createDaemonFixture({
      sim: {
        faults: {
          contractBreakRate: 1,
          contractBreak: 'negative_amount',
          operations: ['getPaymentIntent'],
        },
      },
    });
    await fixture.startDaemon(['workers']);
    const intent = fixture.sim.control.createPaymentIntent({
      amount: 7000,
      purchaseReference: 'broken-1',
    });
    fixture.sim.control.settle(intent.id, 'successful');
    const inboxId = await deliver(fixture, {
      type: 'payment_intent.updated',
      data: { object: { id: intent.id } },
    });
    const row = await settledRow(fixture, inboxId);
    expect(row?.status).toBe('failed');
    expect(row?.lastError).toMatch(
      /^contract_error: getPaymentIntent: response breaks the contract at amount/,
    );
    const [discrepancy] = await openDiscrepancies(fixture.database.db);
    expect(discrepancy).toMatchObject({
      kind: 'contract_error',
      resourceKind: 'payment_intent',
      resourceId: intent.id,
      detail: { operation: 'getPaymentIntent', paths: ['amount'] },
    });
    expect(JSON.parse(discrepancy!.rawBody!)).toMatchObject({ id: intent.id, amount: -7000 });
    expect(await findResource(fixture.database.db, intent.id)).toBeUndefined();
    expect(await journalsFor(fixture.database.db, 'payment_intent', intent.id)).toEqual([]);
  }, 30_000);

  it('marks an unreadable event unclassified, logs it once, and never retries it', async () => {
    fixture = await createDaemonFixture({ env: { PAYSYNC_LOG_LEVEL: 'warn' } });
    const { unclassifiedEventsTotal } = await import('../../src/ingest/index.ts');
    const countBefore = (await unclassifiedEventsTotal.get()).values[0]?.value ?? 0;
    await fixture.startDaemon(['workers']);
    const body = { type: 'ping', hello: 'world' };
    expect(classifyEvent(JSON.stringify(body)).outcome).toBe('unclassified');
    const inboxId = await deliver(fixture, body);
    const row = await settledRow(fixture, inboxId);
    expect(row).toMatchObject({ status: 'unclassified', attempts: 1 });
    expect(row?.lastError).toMatch(/unknown event type "ping"/);
    expect(row?.processedAt).not.toBeNull();
    // Enqueued again (say by hand, or a sweep): nothing happens, nothing is logged again.
    await enqueueIngest(fixture.daemon!.queues, inboxId);
    const ingestQueue = fixture.daemon!.queues.ingest;
    await until(() => ingestQueue.getJobCounts('waiting', 'active', 'delayed'), {
      accept: (c) => (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) === 0,
      message: 'the second ingest job done',
    });
    expect(await findInboxEvent(fixture.database.db, inboxId)).toMatchObject({
      status: 'unclassified',
      attempts: 1,
    });
    // The classifier's own line (the unclassified_events alert may log its title too).
    const lines = fixture.logs.filter((line) =>
      line.includes('webhook event not understood: marked unclassified'),
    );
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ inboxId });
    expect(((await unclassifiedEventsTotal.get()).values[0]?.value ?? 0) - countBefore).toBe(1);
    expect(await fixture.daemon!.queues.ingest.getJobCounts('failed', 'delayed')).toMatchObject({
      failed: 0,
      delayed: 0,
    });
  }, 30_000);
});

describe(`which inbox rows a sync closes, on ${testDialect()}`, () => {
  it('closes rows received before the fetch began, not one that landed during it', async () => {
    context = await createSyncContext({
      sim: { faults: { latencyMs: 600, operations: ['getPaymentIntent'] } },
    });
    const intent = context.sim.control.createPaymentIntent({
      amount: 1500,
      purchaseReference: 'mid-fetch',
    });
    const early = await context.inboxEvent({ kind: 'payment_intent', id: intent.id });
    const requestsBefore = context.deps.upstream.stats().requests;
    const syncing = syncResource(
      context.deps,
      { kind: 'payment_intent', id: intent.id, inboxId: early, via: 'webhook' },
      { attempt: 1 },
    );
    // Once the fetch is under way (the service answers it 600 ms later).
    await until(() => context!.deps.upstream.stats().requests > requestsBefore, {
      message: 'the fetch begun',
    });
    const late = await context.inboxEvent({ kind: 'payment_intent', id: intent.id });
    expect(await syncing).toMatchObject({ outcome: 'synced', closedRows: 1 });
    const db = context.database.db;
    expect(await findInboxEvent(db, early)).toMatchObject({ status: 'processed' });
    expect(await findInboxEvent(db, late)).toMatchObject({ status: 'processing' });
    // Its own sync (which a real event would enqueue) closes it.
    await syncResource(
      context.deps,
      { kind: 'payment_intent', id: intent.id, inboxId: late, via: 'webhook' },
      { attempt: 1 },
    );
    expect(await findInboxEvent(db, late)).toMatchObject({ status: 'processed' });
  });
});
