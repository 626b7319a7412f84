import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Where a received webhook is in its life. */
export const INBOX_STATUSES = [
  'received',
  'processing',
  'processed',
  'unclassified',
  'failed',
] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];

/**
 * One row per distinct webhook event the receiver accepted: the durable record that makes
 * "durable before 2xx" true. Redis may forget a job; this table may not forget an event.
 */
export interface WebhookInboxTable {
  id: Generated<number>;
  /** The event id from the header or body, otherwise sha256 of the raw body. Unique. */
  dedupe_key: string;
  /** The event id the sender gave, when it gave one. */
  event_id: string | null;
  /** The event type the sender gave, when it gave one. */
  event_type: string | null;
  /** The request body exactly as received, byte for byte; empty once retention pruned it. */
  raw_body: Buffer;
  /** Non-secret request headers, as a JSON object; `{}` once retention pruned the body. */
  headers: string;
  /**
   * When retention dropped the body and headers of this processed row (UTC ISO 8601), or null
   * while they are kept. The row itself (dedupe key, event id and type, resource, outcome) stays.
   */
  body_pruned_at: string | null;
  /** UTC ISO 8601 with milliseconds. */
  received_at: string;
  status: Generated<InboxStatus>;
  attempts: Generated<number>;
  last_error: string | null;
  /** UTC ISO 8601 with milliseconds, set when status becomes processed or unclassified. */
  processed_at: string | null;
  /** Which resource the event named, once the ingest job classified it. */
  resource_kind: string | null;
  /** `pi_…`, `tr_…`, `pl_…` or a refund id, when the event gave one. */
  resource_id: string | null;
  /** A transfer reference or purchase reference, when the event gave one. */
  resource_reference: string | null;
  /**
   * The OpenTelemetry trace of the request that stored it (32 hex digits), when tracing was on
   * and sampled it: the item's sync and booking run in that trace (docs/observability.md).
   */
  trace_id: string | null;
}

/** The inbox's tables by name, for the one `Database` interface in src/db. */
export interface InboxTables {
  webhook_inbox: WebhookInboxTable;
}

export type WebhookInboxRow = Selectable<WebhookInboxTable>;
export type NewWebhookInboxRow = Omit<
  Insertable<WebhookInboxTable>,
  'resource_kind' | 'resource_id' | 'resource_reference' | 'body_pruned_at' | 'trace_id'
> &
  Partial<
    Pick<Insertable<WebhookInboxTable>, 'resource_kind' | 'resource_id' | 'resource_reference'>
  >;
export type WebhookInboxUpdate = Updateable<WebhookInboxTable>;
