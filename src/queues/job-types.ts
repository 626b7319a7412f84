/** The resources a webhook can name, and so the resources a sync job fetches. */
export type ResourceKind =
  'payment_intent' | 'transfer' | 'refund' | 'payment_refund' | 'payment_link';

/** How paysync learned about a change: a webhook, a scheduled poll or sweep, or a replay. */
export type ObservedVia = 'webhook' | 'poll' | 'replay';

export const QueueName = {
  /** One job per inbox row: classify the event, enqueue the sync it calls for. */
  ingest: 'ingest',
  /** Fetch one resource's authoritative state and apply it to the ledger. */
  sync: 'sync',
  /** Work that follows a committed change: alerts, receipts (later issues). */
  followUp: 'follow-up',
} as const;
export type QueueNameValue = (typeof QueueName)[keyof typeof QueueName];

export const JobName = {
  ingestEvent: 'ingest-event',
  syncPaymentIntent: 'sync-payment-intent',
  syncTransfer: 'sync-transfer',
  syncRefund: 'sync-refund',
  syncPaymentRefund: 'sync-payment-refund',
  syncPaymentLink: 'sync-payment-link',
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
}
