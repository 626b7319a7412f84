import { runJanitor } from '../src/polling/index.ts';
import type { JobContext } from './job-context.ts';
import { scheduledJob } from './scheduled-job.ts';

/** `janitor` (a scheduler tick): queue the polls that have come, flag stuck items. */
export function janitorJob(context: JobContext) {
  return scheduledJob(context, async (run, context) => {
    const counts = await runJanitor(
      {
        db: context.db,
        queues: context.queues,
        logger: context.logger,
        settings: context.janitor,
        trace: context.trace,
      },
      context.now(),
    );
    run.count({ itemsSeen: counts.due, itemsChanged: counts.stuck });
    run.checkpoint(`due ${counts.due}, polled ${counts.polled}, stuck ${counts.stuck}`);
    return counts;
  });
}
