import type { Generated, Selectable } from 'kysely';

/** One alert: a condition that became true. Times are UTC ISO 8601 with milliseconds. */
export interface AlertTable {
  id: Generated<number>;
  kind: string;
  severity: string;
  dedupe_key: string;
  /** The dedupe key while open or acknowledged, NULL once resolved (unique: one live alert per key). */
  open_key: string | null;
  /** What `paysync show <subject>` opens, when the alert is about one resource. */
  subject: string | null;
  title: string;
  body: string;
  /** JSON object: the facts behind the title (already masked). */
  detail: string;
  /** `open`, `acked` or `resolved`. */
  status: string;
  /** 1 when the alert went out inside a digest instead of on its own. */
  digested: number;
  occurrences: number;
  created_at: string;
  last_seen_at: string;
  notified_at: string | null;
  acked_at: string | null;
  ack_note: string | null;
  /** An ack with `--for`: when it ends and the alert is still open, it notifies again. */
  snoozed_until: string | null;
  resolved_at: string | null;
  /** `condition` (it cleared by itself) or `operator`. */
  resolved_by: string | null;
}

/** A burst of one kind, sent as one message once its window closes. */
export interface AlertDigestTable {
  id: Generated<number>;
  kind: string;
  /** The kind while the digest collects, NULL once sent (unique: one collecting digest per kind). */
  open_key: string | null;
  window_start: string;
  due_at: string;
  /** `collecting` or `sent`. */
  status: string;
  alert_count: number;
  created_at: string;
  sent_at: string | null;
}

/** One message to one sink, with its delivery state. */
export interface AlertDeliveryTable {
  id: Generated<number>;
  alert_id: number | null;
  digest_id: number | null;
  sink: string;
  /** `firing`, `reminder`, `resolved`, `digest` or `test`. */
  event: string;
  /** The rendered message as JSON (masked; never a secret). */
  message: string;
  /** `pending`, `delivered` or `failed` (failed for good after the last retry). */
  status: string;
  attempts: number;
  /** The sink's own words for the last failure (an SMTP reply, an HTTP status and body). */
  last_error: string | null;
  /** When the next try is due; NULL once delivered or given up. */
  next_attempt_at: string | null;
  /** A worker holds the row until then, so two workers never send it at once. */
  claimed_until: string | null;
  created_at: string;
  delivered_at: string | null;
}

export type AlertRow = Selectable<AlertTable>;
export type AlertDeliveryRow = Selectable<AlertDeliveryTable>;
export type AlertDigestRow = Selectable<AlertDigestTable>;
