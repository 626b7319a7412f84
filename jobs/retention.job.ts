import { pruneUnderRun } from '../src/retention/index.ts';
import type { JobContext } from './job-context.ts';
import { scheduledJob } from './scheduled-job.ts';

/** `retention` (a scheduler tick): prune what the retention policy lets go, in small batches. */
export function retentionJob(context: JobContext) {
  return scheduledJob(context, (run, context) =>
    pruneUnderRun(run, context.db, context.retention, context.now()),
  );
}
