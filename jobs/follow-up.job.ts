import type { Job } from 'bullmq';
import { consumeAlertFollowUp } from '../src/alerts/index.ts';
import type { FollowUpJobData } from '../src/queues/index.ts';
import { fetchReceipt, type ReceiptRequest } from '../src/receipts/index.ts';
import type { JobContext } from './job-context.ts';

/** What every follow-up job carries besides its payload (see src/outbox). */
type FollowUpJob = Job<FollowUpJobData & { readonly outboxId?: number }>;

/**
 * `alert`: handed to src/alerts, which records the alert, queues its deliveries and stamps the
 * outbox row consumed in one transaction (without an alert runtime, as in some tests, it is
 * only logged).
 */
function alertFollowUp(context: JobContext) {
  return async (job: FollowUpJob): Promise<string> => {
    const data = job.data;
    if (data.type !== 'alert') throw new Error(`alert job ${job.id} carries type ${data.type}`);
    return consumeAlertFollowUp(
      {
        db: context.db,
        logger: context.logger,
        now: context.now,
        ...(context.alerts ? { alerts: context.alerts } : {}),
      },
      data,
    );
  };
}

/** `receipt`: fetch and archive the service's receipt (src/receipts). */
function receiptFollowUp(context: JobContext) {
  return async (job: FollowUpJob): Promise<string> => {
    const { outboxId, ...request } = job.data as unknown as ReceiptRequest & { outboxId?: number };
    const result = await fetchReceipt(
      {
        db: context.db,
        upstream: context.upstream,
        dir: context.receiptsDir,
        now: context.now,
        logger: context.logger,
        ...(context.receiptRetryDelaysMs ? { retryDelaysMs: context.receiptRetryDelaysMs } : {}),
      },
      request,
      outboxId,
    );
    return result.outcome;
  };
}

/**
 * `follow-up`: a thin dispatcher by the outbox row's kind (the job's `type`): each kind's
 * consumer lives in its own component. An unknown kind fails the job loudly.
 */
export function followUpJob(context: JobContext) {
  const consumers: Record<string, (job: FollowUpJob) => Promise<string>> = {
    alert: alertFollowUp(context),
    receipt: receiptFollowUp(context),
  };
  return async (job: FollowUpJob): Promise<string> => {
    const type = (job.data as { type?: string }).type ?? job.name;
    const consumer = consumers[type];
    if (!consumer) throw new Error(`no consumer for follow-up type "${type}" (job ${job.id})`);
    return consumer(job);
  };
}
