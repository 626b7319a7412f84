import type { Job } from 'bullmq';
import type { SyncJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';
import { runSyncJob } from './run-sync-job.ts';

/** `sync-refund`: fetch a refund of a transfer (GET /refunds/{id}) and apply it to the ledger. */
export function syncRefundJob(context: JobContext) {
  return (job: Job<SyncJobData>): Promise<string> => runSyncJob(context, job);
}
