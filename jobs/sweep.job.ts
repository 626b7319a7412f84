import type { Job } from 'bullmq';
import { recordScheduledRun, runSweep } from '../src/polling/index.ts';
import type { ScheduledJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';

/** `sweep` (a scheduler tick): list recent payment intents and transfers, apply what was missed. */
export function sweepJob(context: JobContext) {
  return async (job: Job<ScheduledJobData>): Promise<string> => {
    const recorded = await recordScheduledRun(
      { db: context.db, logger: context.logger, staleRunAfterMs: context.polling.staleRunAfterMs },
      job.data,
      (run) =>
        runSweep(
          {
            db: context.db,
            upstream: context.upstream,
            logger: context.logger,
            environment: context.environment,

            ...(context.now ? { now: context.now } : {}),
          },
          { sweepOverlapMs: context.polling.sweepOverlapMs, perPage: context.polling.perPage },
          run,
        ),
    );
    const { itemsSeen, itemsChanged, itemsMissed } = recorded.counts;
    return `${recorded.outcome}: ${itemsSeen} seen, ${itemsChanged} changed, ${itemsMissed} missed by webhooks${recorded.error ? ` (${recorded.error})` : ''}`;
  };
}
