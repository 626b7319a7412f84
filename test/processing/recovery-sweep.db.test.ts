import { UnrecoverableError, Worker } from 'bullmq';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { tickSlot } from '../../src/daemon/index.ts';
import { createScheduler } from '../../src/daemon/scheduler.ts';
import { insertInboxEvent, markInboxStatus } from '../../src/inbox/index.ts';
import {
  enqueueIngest,
  enqueueScheduledTick,
  ingestJobId,
  JobName,
  QueueName,
} from '../../src/queues/index.ts';
import { runRecoverySweep } from '../../src/reconcile/index.ts';
import { testDialect } from '../support/test-database.ts';
import { createSyncContext, type SyncContext } from './support/sync-context.ts';
import { failByStalls, runJob } from '../support/stalled-job.ts';
import { until } from '../support/until.ts';

const MINUTE = 60_000;
const logger = pino({ level: 'silent' });

let context: SyncContext | undefined;
afterEach(async () => {
  await context?.cleanup();
  context = undefined;
});

async function row(
  c: SyncContext,
  minutesAgo: number,
  status?: 'processing' | 'processed' | 'unclassified' | 'failed',
) {
  const { inboxId } = await insertInboxEvent(c.database.db, {
    dedupeKey: `sweep:${Math.random()}`,
    eventId: undefined,
    eventType: undefined,
    rawBody: Buffer.from('{"type":"transfer.updated"}'),
    headers: {},
    receivedAt: new Date(Date.now() - minutesAgo * MINUTE),
  });
  if (status) await markInboxStatus(c.database.db, inboxId, status, { at: new Date() });
  return inboxId;
}

/** One recovery sweep of rows received more than five minutes ago. */
function sweep(c: SyncContext) {
  return runRecoverySweep({
    now: () => new Date(),
    db: c.database.db,
    queues: c.queues,
    logger,
    olderThanMs: 5 * MINUTE,
  });
}

describe(`inbox recovery sweep on ${testDialect()}`, () => {
  it('enqueues open rows older than the threshold, once, however often it runs', async () => {
    context = await createSyncContext();
    const received = await row(context, 10);
    const processing = await row(context, 10, 'processing');
    const recent = await row(context, 1);
    await row(context, 10, 'processed');
    await row(context, 10, 'unclassified');
    await row(context, 10, 'failed');

    expect(await sweep(context)).toEqual({ found: 2, enqueued: 2, retried: 0 });
    const waiting = await context.queues.ingest.getWaiting();
    expect(waiting.map((job) => job.id).sort()).toEqual(
      [ingestJobId(received), ingestJobId(processing)].sort(),
    );
    expect(await sweep(context)).toEqual({ found: 2, enqueued: 0, retried: 0 });
    expect(await context.queues.ingest.getWaitingCount()).toBe(2);
    expect(waiting.map((job) => job.id)).not.toContain(ingestJobId(recent));
  });

  it('leaves a row classified at intake while the sync queue holds its batch, and enqueues it once the batch is lost', async () => {
    context = await createSyncContext();
    const { inboxId } = await insertInboxEvent(context.database.db, {
      dedupeKey: 'event:evt_in_a_batch',
      eventId: 'evt_in_a_batch',
      eventType: 'transfer.updated',
      rawBody: Buffer.from('{"id":"evt_in_a_batch","type":"transfer.updated"}'),
      headers: {},
      receivedAt: new Date(Date.now() - 10 * MINUTE),
      resource: { kind: 'transfer', id: 'tr_in_a_batch' },
    });
    // Its batch was queued long ago and still waits (a backlog): nothing to recover.
    await context.queues.sync.add(
      JobName.syncBatch,
      { refs: [{ kind: 'transfer', id: 'tr_in_a_batch', inboxId, via: 'webhook' }] },
      { timestamp: Date.now() - 10 * MINUTE },
    );
    expect(await sweep(context)).toEqual({ found: 1, enqueued: 0, retried: 0 });
    // Redis lost it: the row goes back through ingest.
    await context.queues.sync.obliterate({ force: true });
    expect(await sweep(context)).toEqual({ found: 1, enqueued: 1, retried: 0 });
    expect((await context.queues.ingest.getWaiting()).map((job) => job.id)).toEqual([
      ingestJobId(inboxId),
    ]);
  });

  it('sends a job that failed for good back for another try', async () => {
    context = await createSyncContext();
    const id = await row(context, 10);
    await enqueueIngest(context.queues, id);
    const failing = new Worker(
      QueueName.ingest,
      async () => {
        throw new UnrecoverableError('database was down');
      },
      { connection: context.queues.ingest.opts.connection, prefix: context.queues.prefix },
    );
    await new Promise<void>((resolve) => failing.once('failed', () => resolve()));
    await failing.close();
    expect(await context.queues.ingest.getFailedCount()).toBe(1);

    const result = await sweep(context);
    expect(result).toEqual({ found: 1, enqueued: 0, retried: 1 });
    expect(await context.queues.ingest.getFailedCount()).toBe(0);
    expect((await context.queues.ingest.getWaiting()).map((job) => job.id)).toEqual([
      ingestJobId(id),
    ]);
  });

  it('sends a job that BullMQ failed when its workers died under it back, and it runs', async () => {
    context = await createSyncContext();
    const id = await row(context, 10);
    await enqueueIngest(context.queues, id);
    await failByStalls(context.queues.ingest, ingestJobId(id));

    const result = await sweep(context);
    expect(result).toEqual({ found: 1, enqueued: 0, retried: 1 });
    await runJob(context.queues.ingest, ingestJobId(id));
  });
});

describe('scheduler ticks', () => {
  it('derive one job id per slot, so a second scheduler adds nothing', async () => {
    context = await createSyncContext();
    const slot = tickSlot(new Date('2030-01-01T10:00:00.456Z'));
    expect(slot).toBe('2030-01-01T10:00:00.000Z');
    await enqueueScheduledTick(context.queues, JobName.recoverInbox, {
      task: 'recover-inbox',
      slot,
    });
    await enqueueScheduledTick(context.queues, JobName.recoverInbox, {
      task: 'recover-inbox',
      slot,
    });
    expect(await context.queues.scheduled.getWaitingCount()).toBe(1);
  });

  it('two schedulers running side by side enqueue each slot once', async () => {
    context = await createSyncContext();
    const entries = [{ task: 'recover-inbox', jobName: JobName.recoverInbox, cron: '* * * * * *' }];
    const a = createScheduler({ queues: context.queues, entries, logger });
    const b = createScheduler({ queues: context.queues, entries, logger });
    await a.start();
    await b.start();
    // Until a few slots came by (about three seconds; longer on a busy machine).
    await until(() => context!.queues.scheduled.getWaitingCount(), {
      accept: (waiting) => waiting >= 3,
      message: 'three slots enqueued',
    });
    await a.stop();
    await b.stop();
    const jobs = await context.queues.scheduled.getWaiting();
    const slots = jobs.map((job) => job.data.slot);
    expect(slots.length).toBeGreaterThanOrEqual(2);
    expect(new Set(slots).size).toBe(slots.length);
    expect(new Set(jobs.map((job) => job.id)).size).toBe(jobs.length);
  });
});
