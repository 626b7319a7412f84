import type { ObservedVia, ResourceKind } from '../resources/index.ts';

export const QueueName = {
  /** One job per inbox row: classify the event, enqueue the sync it calls for. */
  ingest: 'ingest',
  /**
   * Fetch resources' authoritative state and apply it to the ledger: one resource per job
   * (sweeps, the janitor, ingest's slow path) or a batch of them (`sync-batch`, the receiver).
   */
  sync: 'sync',
  /**
   * Work that follows a committed change: alerts, relay events, expectations, balances. Never
   * behind receipts, which wait for what the books leave of the service's budget.
   */
  followUp: 'follow-up',
  /**
   * Receipts of settled items: the same outbox rows and processor as the follow-ups, in a
   * queue of their own so that a backlog of receipts never delays an alert (issue 37).
   */
  receipts: 'receipts',
  /** Scheduler ticks (inbox recovery, later sweeps), one job per tick slot. */
  scheduled: 'scheduled',
} as const;
/** Every queue of a deployment, by its key in {@link Queues}, in the order pages list them. */
export const QUEUE_KEYS = ['ingest', 'sync', 'followUp', 'receipts', 'scheduled'] as const;

export type QueueNameValue = (typeof QueueName)[keyof typeof QueueName];

export const JobName = {
  ingestEvent: 'ingest-event',
  syncPaymentIntent: 'sync-payment-intent',
  syncTransfer: 'sync-transfer',
  syncRefund: 'sync-refund',
  syncPaymentRefund: 'sync-payment-refund',
  syncPaymentLink: 'sync-payment-link',
  syncBatch: 'sync-batch',
  alert: 'alert',
  receipt: 'receipt',
  recoverInbox: 'recover-inbox',
  janitor: 'janitor',
  sweep: 'sweep',
  balances: 'balances',
  verdicts: 'verdicts',
  export: 'export',
  retention: 'retention',
  expectations: 'expectations',
} as const;

export const syncJobNameFor: Record<ResourceKind, (typeof JobName)[keyof typeof JobName]> = {
  payment_intent: JobName.syncPaymentIntent,
  transfer: JobName.syncTransfer,
  refund: JobName.syncRefund,
  payment_refund: JobName.syncPaymentRefund,
  payment_link: JobName.syncPaymentLink,
};

export interface IngestJobData {
  readonly inboxId: number;
  /** How the event came back to the workers. @defaultValue `webhook` */
  readonly via?: ObservedVia;
  /** The W3C `traceparent` of the webhook (or the tick) that enqueued it, when traced. */
  readonly traceparent?: string;
}

/** What a sync job needs to find the resource: its id, or its reference, or both. */
export interface SyncJobData {
  readonly kind: ResourceKind;
  /** `pi_…`, `tr_…`, `pl_…`, or a refund id as text. */
  readonly id?: string;
  /** Transfer reference or payment `purchaseReference`, when known. */
  readonly reference?: string;
  /** The inbox row that caused this sync, when a webhook did. */
  readonly inboxId?: number;
  readonly via: ObservedVia;
  /**
   * The W3C `traceparent` of the webhook's span, when it was traced: the sync continues that
   * trace (docs/observability.md). Never part of a job id or a dedupe key.
   */
  readonly traceparent?: string;
}

/**
 * A batch of resources to sync together (design: docs/processing.md, "Batches of resources"):
 * fetched concurrently, applied in one transaction. Each reference is what a single sync job
 * would carry.
 */
export interface SyncBatchJobData {
  readonly refs: readonly SyncJobData[];
  /** Which try of these references this is, 1-based; a retry is a new job. @defaultValue 1 */
  readonly attempt?: number;
  /**
   * The `traceparent` of every traced webhook the batch serves, those whose reference gave way
   * to a newer one of the same resource included: the batch's span links to each.
   */
  readonly traceparents?: readonly string[];
}

/** What the `sync` queue carries: one resource, or a batch (job name `sync-batch`). */
export type SyncQueueJobData = SyncJobData | SyncBatchJobData;

/** Why an alert is raised after a committed change. */
export type AlertReason = 'transfer_failed' | 'discrepancy';

/**
 * Work that follows a committed change, handed out from the outbox (src/outbox): the row's
 * payload, its kind as `type`, and `outboxId`, by which every consumer is idempotent.
 */
export type FollowUpJobData = (
  | {
      readonly type: 'alert';
      readonly reason: AlertReason;
      readonly kind: ResourceKind;
      readonly id: string;
      readonly status?: string;
      /** Set for `discrepancy` alerts. */
      readonly discrepancyId?: number;
      readonly discrepancyKind?: string;
    }
  | {
      readonly type: 'receipt';
      readonly kind: ResourceKind;
      readonly id: string;
      readonly status: string;
    }
) & { readonly outboxId?: number };

/** A scheduler tick: which task, and the slot (UTC ISO 8601) it stands for. */
export interface ScheduledJobData {
  readonly task: string;
  readonly slot: string;
}

/** One outbox row inside a batch: the row's payload, its kind as `type`, and its id. */
export type FollowUpRowData = FollowUpJobData & { readonly outboxId: number };

/**
 * A follow-up job carrying up to `PAYSYNC_OUTBOX_BATCH_SIZE` outbox rows (src/outbox). The
 * follow-up queue also holds one-row jobs (data: {@link FollowUpJobData}): a row handed out
 * alone (a retry, a re-dispatch) or a job enqueued before the batches.
 */
export interface FollowUpBatchJobData {
  readonly type: 'batch';
  readonly rows: readonly FollowUpRowData[];
}

/** What the follow-up queue carries: a batch of outbox rows, or one row. */
export type FollowUpQueueData = FollowUpJobData | FollowUpBatchJobData;

/**
 * The queue an outbox row of this kind goes to: receipts to their own, the rest to the
 * follow-up queue. Both run the same processor.
 */
export function followUpQueueOf(kind: string): 'followUp' | 'receipts' {
  return kind === 'receipt' ? 'receipts' : 'followUp';
}

/** The job name of a batch of follow-ups (a one-row job is named after its kind). */
export const FOLLOW_UP_BATCH_JOB_NAME = 'follow-ups';
