import { createHash } from 'node:crypto';

export interface EventIdentity {
  /**
   * Unique in the inbox: `event:<id>` when the sender named the event (`event-sha256:<hex of
   * the id>` for an id over {@link MAX_KEYED_ID_LENGTH} characters), else `sha256:<hex of the
   * body>`.
   */
  readonly dedupeKey: string;
  /** The sender's event id, whole, however long. */
  readonly eventId: string | undefined;
  readonly eventType: string | undefined;
}

/**
 * Longest event id used in the key as it is. A longer one is keyed by its sha256: the key
 * stays short enough for the UNIQUE index (PostgreSQL refuses index entries over ~2.7 kB),
 * and two distinct long ids still get two distinct keys.
 */
const MAX_KEYED_ID_LENGTH = 200;

/** Longest event type kept; a type is only a label for people, so a longer one is dropped. */
const MAX_TYPE_LENGTH = 200;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The dedupe key of an event the sender named; see {@link MAX_KEYED_ID_LENGTH}. */
export function eventKey(eventId: string): string {
  return eventId.length <= MAX_KEYED_ID_LENGTH
    ? `event:${eventId}`
    : `event-sha256:${sha256(eventId)}`;
}

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

function text(value: unknown, maxLength = Infinity): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.includes(NUL)) return undefined;
  const trimmed = value.trim();
  return trimmed === '' || trimmed.length > maxLength ? undefined : trimmed;
}

function field(body: unknown, names: readonly string[], maxLength?: number): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  for (const name of names) {
    const value = text(record[name], maxLength);
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
  const eventType = field(
    body,
    ['type', 'event', 'name', 'eventType', 'event_type'],
    MAX_TYPE_LENGTH,
  );
  const dedupeKey = eventId ? eventKey(eventId) : `sha256:${sha256(rawBody)}`;
  return { dedupeKey, eventId, eventType };
}
