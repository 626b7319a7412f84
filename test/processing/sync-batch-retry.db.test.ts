import type { Job } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobContext } from '../../jobs/job-context.ts';
import { syncBatchJob } from '../../jobs/sync-batch.job.ts';
import {
  DEFAULT_SYNC_BATCH_SIZE,
  JOB_ATTEMPTS,
  type SyncBatchJobData,
  type SyncJobData,
} from '../../src/queues/index.ts';
import { testDialect } from '../support/test-database.ts';
import { createSyncContext, type SyncContext } from './support/sync-context.ts';

let context: SyncContext | undefined;
afterEach(async () => {
  await context?.cleanup();
  context = undefined;
});

/** Payment intents the simulator does not know: each fetch is a 404, which is retried. */
async function missingIntents(ctx: SyncContext, count: number): Promise<SyncJobData[]> {
  const refs: SyncJobData[] = [];
  for (let i = 1; i <= count; i += 1) {
    const id = `pi_${String(i).padStart(24, '0')}`;
    const inboxId = await ctx.inboxEvent({ kind: 'payment_intent', id });
    refs.push({ kind: 'payment_intent', id, inboxId, via: 'webhook' });
  }
  return refs;
}

/** The job as a worker of a process configured with `syncBatchSize` runs it. */
function jobContext(ctx: SyncContext, syncBatchSize: number): JobContext {
  return {
    ...ctx.deps,
    // A 404 stays a retry on every try, so each try hands its references back.
    notFoundAttempts: JOB_ATTEMPTS + 1,
    windowReads: false,
    syncBatchSize,
  } as unknown as JobContext;
}

/** Runs the `sync-batch` processor on these job data, as BullMQ would hand them over. */
async function runJob(ctx: JobContext, id: string, data: SyncBatchJobData): Promise<void> {
  await syncBatchJob(ctx)({ id, data } as unknown as Job<SyncBatchJobData>);
}

async function requeued(ctx: SyncContext) {
  const jobs = await ctx.queues.sync.getJobs(['delayed', 'waiting']);
  return jobs
    .map((job) => ({
      refs: (job.data as SyncBatchJobData).refs.length,
      attempt: (job.data as SyncBatchJobData).attempt,
      delay: job.opts.delay,
    }))
    .sort((a, b) => b.refs - a.refs);
}

/**
 * Issue 41: the references a sync batch hands back for another try go out in batches of the
 * configured size (PAYSYNC_SYNC_BATCH_SIZE), as the receiver's first batches do, after the
 * batch retry policy's back-off (src/reconcile).
 */
describe(`a sync batch's retry on ${testDialect()}`, () => {
  it('re-queues the references to retry in batches of the configured size, not the default', async () => {
    context = await createSyncContext();
    const size = 2;
    expect(size).not.toBe(DEFAULT_SYNC_BATCH_SIZE);
    const refs = await missingIntents(context, 5);
    await runJob(jobContext(context, size), 'batch-test', { refs });
    expect(await requeued(context)).toEqual([
      { refs: 2, attempt: 2, delay: 1000 },
      { refs: 2, attempt: 2, delay: 1000 },
      { refs: 1, attempt: 2, delay: 1000 },
    ]);
  });

  it('backs off exponentially, and after the last try hands nothing back', async () => {
    context = await createSyncContext();
    const refs = await missingIntents(context, 3);
    await runJob(jobContext(context, 10), 'batch-test-3', { refs, attempt: 3 });
    expect(await requeued(context)).toEqual([{ refs: 3, attempt: 4, delay: 4000 }]);
    await context.queues.sync.obliterate({ force: true });

    await runJob(jobContext(context, 10), 'batch-test-last', { refs, attempt: JOB_ATTEMPTS });
    expect(await requeued(context)).toEqual([]);
  });
});
