import type { Job } from 'bullmq';
import type { SyncJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';
import { runSyncJob } from './run-sync-job.ts';

/** `sync-payment-refund`: fetch a payment refund (GET /payments-refund/{refundId}/status) and apply it to the ledger. */
export function syncPaymentRefundJob(context: JobContext) {
  return (job: Job<SyncJobData>): Promise<string> => runSyncJob(context, job);
}
