import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Kysely } from 'kysely';
import type { Database } from '../src/db/index.ts';
import { raiseAlertFromFollowUp, type AlertRuntime } from '../src/alerts/index.ts';
import { isOutboxConsumed, markOutboxConsumed } from '../src/outbox/index.ts';
import type { FollowUpJobData } from '../src/queues/index.ts';
import { fetchReceipt, type ReceiptRequest } from '../src/receipts/index.ts';
import type { JobContext } from './job-context.ts';

/** What every follow-up job carries besides its payload (see src/outbox). */
type FollowUpJob = Job<FollowUpJobData & { readonly outboxId?: number }>;

/**
 * `alert`: handed to src/alerts, which records the alert and queues its deliveries (without
 * an alert runtime, as in some tests, it is only logged). Idempotent by the outbox row's id,
 * like every consumer; raising twice is harmless anyway (the live alert counts one more
 * occurrence).
 */
function alertFollowUp(db: Kysely<Database>, logger: Logger, alerts: AlertRuntime | undefined) {
  return async (job: FollowUpJob): Promise<string> => {
    const data = job.data;
    if (data.type !== 'alert') throw new Error(`alert job ${job.id} carries type ${data.type}`);
    if (data.outboxId !== undefined && (await isOutboxConsumed(db, data.outboxId))) {
      return 'already done';
    }
    let outcome = 'logged';
    if (alerts) {
      const raised = await raiseAlertFromFollowUp({ db, alerts }, data);
      outcome = `alert ${raised.alert.id} ${raised.outcome}`;
    } else {
      logger.warn(
        { alert: data },
        `alert: ${data.reason.replace('_', ' ')} (${data.kind} ${data.id})`,
      );
    }
    if (data.outboxId !== undefined) await markOutboxConsumed(db, data.outboxId);
    return outcome;
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
    alert: alertFollowUp(context.db, context.logger, context.alerts),
    receipt: receiptFollowUp(context),
  };
  return async (job: FollowUpJob): Promise<string> => {
    const type = (job.data as { type?: string }).type ?? job.name;
    const consumer = consumers[type];
    if (!consumer) throw new Error(`no consumer for follow-up type "${type}" (job ${job.id})`);
    return consumer(job);
  };
}
