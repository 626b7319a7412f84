import type { Job } from 'bullmq';
import { runJanitor } from '../src/polling/index.ts';
import type { ScheduledJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';

/** `janitor` (a scheduler tick): queue the polls that have come, flag stuck items. */
export function janitorJob(context: JobContext) {
  return async (_job: Job<ScheduledJobData>): Promise<string> => {
    const counts = await runJanitor(
      { db: context.db, queues: context.queues, logger: context.logger, settings: context.janitor },
      (context.now ?? (() => new Date()))(),
    );
    return `due ${counts.due}, polled ${counts.polled}, stuck ${counts.stuck}`;
  };
}
