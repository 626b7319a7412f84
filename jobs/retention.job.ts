import { pruneSummary, pruneTables } from '../src/retention/index.ts';
import type { JobContext } from './job-context.ts';
import { scheduledJob } from './scheduled-job.ts';

/** `retention` (a scheduler tick): prune what the retention policy lets go, in small batches. */
export function retentionJob(context: JobContext) {
  return scheduledJob(context, async (run) => {
    const results = await pruneTables(context.db, context.retention, context.now());
    run.count({
      itemsSeen: results.reduce((sum, r) => sum + r.count, 0),
      itemsChanged: results.reduce((sum, r) => sum + r.pruned, 0),
    });
    run.checkpoint(pruneSummary(results));
    return results;
  });
}
