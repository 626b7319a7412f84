import type { Job } from 'bullmq';
import type { SyncJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';
import { runSyncJob } from './run-sync-job.ts';

/** `sync-transfer`: fetch a transfer (GET /transfers?reference=, the reference found as docs/processing.md says) and apply it to the ledger. */
export function syncTransferJob(context: JobContext) {
  return (job: Job<SyncJobData>): Promise<string> => runSyncJob(context, job);
}
