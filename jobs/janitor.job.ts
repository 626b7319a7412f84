import type { Job } from 'bullmq';
import { recordScheduledRun, runJanitor } from '../src/polling/index.ts';
import type { ScheduledJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';

/** `janitor` (a scheduler tick): queue the polls that have come, flag stuck items. */
export function janitorJob(context: JobContext) {
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
        const counts = await runJanitor(
          {
            db: context.db,
            queues: context.queues,
            logger: context.logger,
            settings: context.janitor,
          },
          context.now(),
        );
        run.count({ itemsSeen: counts.due, itemsChanged: counts.stuck });
        run.checkpoint(`due ${counts.due}, polled ${counts.polled}, stuck ${counts.stuck}`);
        return counts;
      },
    );
    return `${recorded.outcome}${recorded.error ? ` (${recorded.error})` : ''}`;
  };
}
