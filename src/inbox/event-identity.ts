import { createHash } from 'node:crypto';

export interface EventIdentity {
  /** Unique in the inbox: `event:<id>` when the sender named the event, else `sha256:<hex>`. */
  readonly dedupeKey: string;
  readonly eventId: string | undefined;
  readonly eventType: string | undefined;
}

const MAX_ID_LENGTH = 200;

/**
 * A resource's own id (`pi_…`, `tr_…`, `pl_…`, `wh_…`, or a numeric refund id) is not an event
 * id: if the service ever posts the bare resource as the body, keying on it would drop every
 * later change of that resource as a "duplicate". Such bodies dedupe on their hash instead.
 */
const RESOURCE_ID = /^(?:pi|tr|pl|wh|pay|fee|rc)_|^\d+$/;

/**
 * A JSON string may hold U+0000, which a PostgreSQL text column refuses: taken as an id or a
 * type, it would fail the insert (503 for ever, to the events committed with it too). Such a
 * value is not used; the raw body, stored as bytes, still holds it.
 */
const NUL = '\u0000';

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.includes(NUL)) return undefined;
  const trimmed = value.trim();
  return trimmed === '' || trimmed.length > MAX_ID_LENGTH ? undefined : trimmed;
}

function field(body: unknown, names: readonly string[]): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  for (const name of names) {
    const value = text(record[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * Names one webhook for deduplication. The event id comes from a signed header when the
 * signature scheme covers one (Standard Webhooks' `webhook-id`, identical across retries),
 * otherwise from the body's `id`/`eventId`/`event_id`; without one, the sha256 of the raw
 * bytes, so a byte-identical redelivery is still recognised.
 */
export function eventIdentity(
  rawBody: Buffer,
  body: unknown,
  signedEventId?: string,
): EventIdentity {
  const fromBody = field(body, ['id', 'eventId', 'event_id']);
  const eventId =
    text(signedEventId) ?? (fromBody && !RESOURCE_ID.test(fromBody) ? fromBody : undefined);
  const eventType = field(body, ['type', 'event', 'name', 'eventType', 'event_type']);
  const dedupeKey = eventId
    ? `event:${eventId}`
    : `sha256:${createHash('sha256').update(rawBody).digest('hex')}`;
  return { dedupeKey, eventId, eventType };
}
