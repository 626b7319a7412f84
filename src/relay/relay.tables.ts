import type { Generated, Selectable } from 'kysely';

// The relay's tables (migrations/0015_relay.ts, docs/relay.md). Times are UTC ISO 8601 with
// milliseconds; JSON columns are text.

/** One event, written in the transaction of the change that causes it. */
export interface RelayEventTable {
  /** The order of emission. */
  id: Generated<number>;
  /** The public id (`evt_…`), sent as `webhook-id`. */
  event_id: string;
  /** A catalog type: `transfer.succeeded`, `day.verdict`, … */
  type: string;
  /** The item the event is about (`transfer:tr_…`, `day:2026-11-01`), the unit of order; null: none. */
  subject: string | null;
  /** Same key, same event: a replayed change emits nothing new. */
  dedupe_key: string;
  /** `live` or `sandbox`. */
  environment: string;
  occurred_at: string;
  /** JSON object: the event's `data`. */
  data: string;
  created_at: string;
  /** The emitting booking's W3C `traceparent`, when traced (docs/observability.md); never sent. */
  traceparent: string | null;
}

/** A merchant's receiving URL. */
export interface RelayEndpointTable {
  id: Generated<number>;
  /** The public id (`ep_…`). */
  endpoint_id: string;
  url: string;
  description: string | null;
  /** JSON array of type patterns (`transfer.*`); null: every type. */
  event_types: string | null;
  /** `whsec_…`: never logged, printed once by `endpoints add` and `rotate-secret`. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** `enabled` or `disabled`. */
  status: string;
  disabled_reason: string | null;
  disabled_at: string | null;
  /** Start of the current run of failed attempts; null after a success. */
  failing_since: string | null;
  last_success_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One event for one endpoint: its state machine. */
export interface RelayDeliveryTable {
  id: Generated<number>;
  /** relay_endpoints.id */
  endpoint_id: number;
  /** relay_events.id */
  event_id: number;
  /** The event's subject: one subject's deliveries to one endpoint go out in event order. */
  subject: string | null;
  /** `pending`, `delivered` or `gave_up`. */
  state: string;
  attempts: Generated<number>;
  next_attempt_at: string;
  /** Held by a deliverer until then; another may take it after. */
  claimed_until: string | null;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  /** When it was delivered or given up. */
  finished_at: string | null;
  created_at: string;
}

/** The delivery log: one row per POST. */
export interface RelayAttemptTable {
  id: Generated<number>;
  delivery_id: number;
  endpoint_id: number;
  event_id: number;
  attempt: number;
  attempted_at: string;
  duration_ms: number;
  /** `delivered`, `failed` (non-2xx), `timeout`, `error` (no answer), `gone` (410). */
  outcome: string;
  status_code: number | null;
  /** At most 1 KB of the answer; text, never rendered as HTML. */
  response_excerpt: string | null;
  error: string | null;
}

export type RelayEventRow = Selectable<RelayEventTable>;
export type RelayEndpointRow = Selectable<RelayEndpointTable>;
export type RelayDeliveryRow = Selectable<RelayDeliveryTable>;
export type RelayAttemptRow = Selectable<RelayAttemptTable>;
