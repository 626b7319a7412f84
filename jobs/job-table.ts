import type { Job } from 'bullmq';
import { JobName } from '../src/queues/index.ts';
import { balancesJob } from './balances.job.ts';
import { followUpJob } from './follow-up.job.ts';
import { ingestEventJob } from './ingest-event.job.ts';
import { exportJob } from './export.job.ts';
import { expectationsJob } from './expectations.job.ts';
import { janitorJob } from './janitor.job.ts';
import type { JobContext } from './job-context.ts';
import { recoverInboxJob } from './recover-inbox.job.ts';
import { retentionJob } from './retention.job.ts';
import { sweepJob } from './sweep.job.ts';
import { syncBatchJob } from './sync-batch.job.ts';
import { syncPaymentIntentJob } from './sync-payment-intent.job.ts';
import { syncPaymentLinkJob } from './sync-payment-link.job.ts';
import { syncPaymentRefundJob } from './sync-payment-refund.job.ts';
import { syncRefundJob } from './sync-refund.job.ts';
import { syncTransferJob } from './sync-transfer.job.ts';
import { verdictsJob } from './verdicts.job.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each queue carries its own data type
type Processor = (job: Job<any>) => Promise<unknown>;

/** Routes a job to its processor by name; an unknown name fails the job loudly. */
function byName(table: Record<string, Processor>): Processor {
  return async (job) => {
    const processor = table[job.name];
    if (!processor) throw new Error(`no processor for job "${job.name}"`);
    return processor(job);
  };
}

/** One processor per queue: the queue names are in src/queues, the jobs are in this folder. */
export function jobProcessors(context: JobContext) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- sync-batch carries its own data
  const sync: Record<string, (job: Job<any>) => Promise<string>> = {
    [JobName.syncPaymentIntent]: syncPaymentIntentJob(context),
    [JobName.syncTransfer]: syncTransferJob(context),
    [JobName.syncRefund]: syncRefundJob(context),
    [JobName.syncPaymentRefund]: syncPaymentRefundJob(context),
    [JobName.syncPaymentLink]: syncPaymentLinkJob(context),
    [JobName.syncBatch]: syncBatchJob(context),
  };
  const followUp = followUpJob(context);
  return {
    ingest: byName({ [JobName.ingestEvent]: ingestEventJob(context) }),
    sync: byName(sync),
    // Routed by the outbox row's kind inside: a new kind needs no entry here.
    followUp,
    scheduled: byName({
      [JobName.recoverInbox]: recoverInboxJob(context),
      [JobName.janitor]: janitorJob(context),
      [JobName.sweep]: sweepJob(context),
      [JobName.balances]: balancesJob(context),
      [JobName.verdicts]: verdictsJob(context),
      [JobName.export]: exportJob(context),
      [JobName.retention]: retentionJob(context),
      [JobName.expectations]: expectationsJob(context),
    }),
  };
}
