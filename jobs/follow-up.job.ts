import type { Job } from 'bullmq';
import { consumeAlertFollowUp } from '../src/alerts/index.ts';
import { consumeOutboxBatch } from '../src/outbox/index.ts';
import type { FollowUpJobData, FollowUpQueueData } from '../src/queues/index.ts';
import { fetchReceipt, type ReceiptRequest } from '../src/receipts/index.ts';
import type { JobContext } from './job-context.ts';

/** One outbox row as its consumer takes it: the payload, `type` = kind, and the row's id. */
type FollowUpRow = FollowUpJobData & { readonly outboxId?: number };
type RowConsumer = (row: FollowUpRow) => Promise<string>;

/**
 * `alert`: handed to src/alerts, which records the alert, queues its deliveries and stamps the
 * outbox row consumed in one transaction (without an alert runtime, as in some tests, it is
 * only logged).
 */
function alertFollowUp(context: JobContext): RowConsumer {
  return async (row) => {
    if (row.type !== 'alert') throw new Error(`alert follow-up carries type ${row.type}`);
    return consumeAlertFollowUp(
      {
        db: context.db,
        logger: context.logger,
        now: context.now,
        ...(context.alerts ? { alerts: context.alerts } : {}),
      },
      row,
    );
  };
}

/** `receipt`: fetch and archive the service's receipt (src/receipts). */
function receiptFollowUp(context: JobContext): RowConsumer {
  return async (row) => {
    const { outboxId, ...request } = row as unknown as ReceiptRequest & { outboxId?: number };
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
 * `follow-up`: a thin dispatcher by the outbox row's kind (the row's `type`): each kind's
 * consumer lives in its own component. A batch job (`type: 'batch'`) hands its rows to
 * src/outbox, which runs each row's consumer and sends a failing row back alone; a one-row job
 * (a row retried alone, or one enqueued before the batches) runs its consumer directly. An
 * unknown kind fails loudly.
 */
export function followUpJob(context: JobContext) {
  const consumers: Record<string, RowConsumer> = {
    alert: alertFollowUp(context),
    receipt: receiptFollowUp(context),
  };
  const consumeRow = (row: FollowUpRow, name: string): Promise<string> => {
    const type = (row as { type?: string }).type ?? name;
    const consumer = consumers[type];
    if (!consumer) throw new Error(`no consumer for follow-up type "${type}"`);
    return consumer(row);
  };
  return async (job: Job<FollowUpQueueData>): Promise<string> => {
    const data = job.data;
    if (data.type === 'batch') {
      const result = await consumeOutboxBatch(
        { db: context.db, queues: context.queues, logger: context.logger },
        data.rows,
        (row) => consumeRow(row, job.name),
      );
      return `${result.done.size} done, ${result.alreadyDone.length} already done, ${result.retriedAlone.length} retried alone`;
    }
    return consumeRow(data, job.name);
  };
}
