import type { Job } from 'bullmq';
import { consumeAlertFollowUp } from '../src/alerts/index.ts';
import { consumeOutboxBatch, type OutboxRowsConsumer } from '../src/outbox/index.ts';
import type { FollowUpJobData, FollowUpQueueData } from '../src/queues/index.ts';
import {
  fetchReceipt,
  fetchReceipts,
  type ReceiptDependencies,
  type ReceiptRequest,
} from '../src/receipts/index.ts';
import type { JobContext } from './job-context.ts';
import {
  contextOfTraceparent,
  inSpan,
  itemAttributes,
  SpanKind,
  traced,
  TRACE_ATTRIBUTES,
} from '../src/tracing/index.ts';

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

function receiptDependencies(context: JobContext): ReceiptDependencies {
  return {
    db: context.db,
    upstream: context.upstream,
    dir: context.receiptsDir,
    now: context.now,
    logger: context.logger,
    ...(context.receiptRetryDelaysMs ? { retryDelaysMs: context.receiptRetryDelaysMs } : {}),
    ...(context.metrics ? { metrics: context.metrics } : {}),
  };
}

/** `receipt`: fetch and archive the service's receipt (src/receipts). */
function receiptFollowUp(context: JobContext): RowConsumer {
  return async (row) => {
    const { outboxId, ...request } = row as unknown as ReceiptRequest & { outboxId?: number };
    const result = await fetchReceipt(receiptDependencies(context), request, outboxId);
    return result.outcome;
  };
}

/** The `receipt` rows of a batch: fetched side by side, archived in one transaction. */
function receiptFollowUps(context: JobContext): OutboxRowsConsumer {
  return async (rows) => {
    const results = await fetchReceipts(
      receiptDependencies(context),
      rows.map((row) => {
        const {
          outboxId,
          traceparent: _trace,
          ...request
        } = row as unknown as ReceiptRequest & {
          outboxId: number;
          traceparent?: string;
        };
        return { request, outboxId };
      }),
    );
    return results.map((result) =>
      'error' in result ? { error: result.error } : { done: result.outcome.outcome },
    );
  };
}

/**
 * `follow-up`: a thin dispatcher by the outbox row's kind (the row's `type`): each kind's
 * consumer lives in its own component. A batch job (`type: 'batch'`) hands its rows to
 * src/outbox, which runs each row's consumer (the receipts of the batch together, in one
 * commit) and sends a failing row back alone; a one-row job
 * (a row retried alone, or one enqueued before the batches) runs its consumer directly. An
 * unknown kind fails loudly.
 */
export function followUpJob(context: JobContext) {
  // Built per row, from the context within the row's span (its upstream calls and log lines).
  const consumers: Record<string, (context: JobContext) => RowConsumer> = {
    alert: alertFollowUp,
    receipt: receiptFollowUp,
  };
  const together: Record<string, OutboxRowsConsumer> = { receipt: receiptFollowUps(context) };
  const consumeRow = (carried: FollowUpRow, name: string): Promise<string> => {
    // The change's trace, carried in the outbox row (docs/observability.md), is taken off the
    // row: consumers see the payload as it was added.
    const { traceparent, ...row } = carried as FollowUpRow & { traceparent?: string };
    const type = (row as { type?: string }).type ?? name;
    const consumer = consumers[type];
    if (!consumer) throw new Error(`no consumer for follow-up type "${type}"`);
    const item = row as { kind?: unknown; id?: unknown };
    return inSpan(
      `paysync.follow_up ${type}`,
      {
        kind: SpanKind.CONSUMER,
        parent: contextOfTraceparent(traceparent),
        attributes: {
          [TRACE_ATTRIBUTES.followUp]: type,
          ...(typeof item.kind === 'string' && typeof item.id === 'string'
            ? itemAttributes({ kind: item.kind, id: item.id, tenant: context.tenant })
            : {}),
        },
      },
      (_span, followUp) => consumer(traced(context, followUp))(row as FollowUpRow),
    );
  };
  return async (job: Job<FollowUpQueueData>): Promise<string> => {
    const data = job.data;
    if (data.type === 'batch') {
      const result = await consumeOutboxBatch(
        { db: context.db, queues: context.queues, logger: context.logger },
        data.rows,
        (row) => consumeRow(row, job.name),
        together,
      );
      return `${result.done.size} done, ${result.alreadyDone.length} already done, ${result.retriedAlone.length} retried alone`;
    }
    return consumeRow(data, job.name);
  };
}
