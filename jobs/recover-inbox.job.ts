import type { Job } from 'bullmq';
import { recordScheduledRun } from '../src/polling/index.ts';
import type { ScheduledJobData } from '../src/queues/index.ts';
import { runRecoverySweep } from '../src/reconcile/index.ts';
import type { JobContext } from './job-context.ts';

/** `recover-inbox` (a scheduler tick): enqueue inbox rows that sat unprocessed. */
export function recoverInboxJob(context: JobContext) {
  return async (job: Job<ScheduledJobData>): Promise<string> => {
    const recorded = await recordScheduledRun(
      {
        db: context.db,
        logger: context.logger,
        staleRunAfterMs: context.polling.staleRunAfterMs,
        now: context.now,
      },
      job.data,
      async (run) => {
        const result = await runRecoverySweep({
          db: context.db,
          queues: context.queues,
          logger: context.logger,
          olderThanMs: context.recoveryAfterMs,
          now: context.now,
        });
        run.count({ itemsSeen: result.found, itemsChanged: result.enqueued + result.retried });
        return result;
      },
    );
    if (!recorded.value) return recorded.error ?? recorded.outcome;
    const { found, enqueued, retried } = recorded.value;
    return `found ${found}, enqueued ${enqueued}, retried ${retried}`;
  };
}
