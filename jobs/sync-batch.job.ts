import { setTimeout as sleep } from 'node:timers/promises';
import type { Job } from 'bullmq';
import { enqueueSyncBatch, JOB_ATTEMPTS, type SyncBatchJobData } from '../src/queues/index.ts';
import { syncBatch } from '../src/reconcile/index.ts';
import type { JobContext } from './job-context.ts';

/**
 * `sync-batch`: fetch a batch of resources and apply them in one transaction. The references
 * that failed in a way a later try may fix go back as one new batch, after an exponential
 * back-off (1 s, 2 s, 4 s, …); the others are done, so a retry never fetches them again. After
 * the last try the rows stay open and the recovery sweep hands them out again.
 */
export function syncBatchJob(context: JobContext) {
  return async (job: Job<SyncBatchJobData>): Promise<string> => {
    const attempt = job.data.attempt ?? 1;
    const result = await syncBatch(context, job.data, { attempt });
    const hold = context.syncBatchHoldAfterCommitMs ?? 0;
    if (hold > 0) {
      context.logger.warn(
        { jobId: job.id, holdMs: hold },
        'sync batch committed; holding before its acknowledgement (PAYSYNC_SYNC_BATCH_HOLD_AFTER_COMMIT_MS)',
      );
      await sleep(hold);
    }
    if (result.retry.length > 0) {
      if (attempt < JOB_ATTEMPTS) {
        await enqueueSyncBatch(context.queues, result.retry, {
          attempt: attempt + 1,
          delayMs: 1000 * 2 ** (attempt - 1),
        });
      } else {
        context.logger.error(
          { refs: result.retry.length, attempts: attempt },
          'sync batch: references still failing after the last try; the inbox recovery sweep will hand their rows out again',
        );
      }
    }
    return Object.entries(result.counts)
      .filter(([, count]) => count > 0)
      .map(([outcome, count]) => `${outcome} ${count}`)
      .join(', ');
  };
}
