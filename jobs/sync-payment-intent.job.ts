import type { Job } from 'bullmq';
import type { SyncJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';
import { runSyncJob } from './run-sync-job.ts';

/** `sync-payment-intent`: fetch a payment intent (GET /terminal/payments/{id}, or the list by purchaseReference) and apply it to the ledger. */
export function syncPaymentIntentJob(context: JobContext) {
  return (job: Job<SyncJobData>): Promise<string> => runSyncJob(context, job);
}
