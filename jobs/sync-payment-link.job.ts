import type { Job } from 'bullmq';
import type { SyncJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';
import { runSyncJob } from './run-sync-job.ts';

/** `sync-payment-link`: fetch a payment link: fetch it and sync the payment intents made through it and apply it to the ledger. */
export function syncPaymentLinkJob(context: JobContext) {
  return (job: Job<SyncJobData>): Promise<string> => runSyncJob(context, job);
}
