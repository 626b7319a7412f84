import { eventIdentity, eventKey, type EventIdentity } from './event-identity.ts';

/** One event of a batch: its own identity and its own bytes, cut from the request body. */
export interface BatchElement extends EventIdentity {
  /** The element's bytes exactly as they stand in the request body (never re-serialised). */
  readonly rawBody: Buffer;
}

/** Keys of an envelope object whose array value is a batch, in the order they are tried. */
const BATCH_KEYS = ['events', 'data'] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Fields that make an object an event of its own: such an object is one event even when its
 * `data` or `events` member is a list (the fuzz test found `{"id","type","data":[…]}` split).
 */
const EVENT_TYPE_KEYS = ['type', 'event', 'eventType', 'event_type'] as const;

const isEventItself = (value: Record<string, unknown>): boolean =>
  EVENT_TYPE_KEYS.some((key) => typeof value[key] === 'string');

/** A non-empty list whose every element is a JSON object: the only list taken as events. */
const isEventList = (value: unknown): value is Record<string, unknown>[] =>
  Array.isArray(value) && value.length > 0 && value.every(isObject);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN = new Set([0x7b, 0x5b]);
const CLOSE = new Set([0x7d, 0x5d]);
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWhitespace(bytes: Buffer, at: number): number {
  while (at < bytes.length && WHITESPACE.has(bytes[at]!)) at += 1;
  return at;
}

/** End (exclusive) of the string whose opening quote is at `at`. */
function stringEnd(bytes: Buffer, at: number): number {
  for (let i = at + 1; i < bytes.length; i += 1) {
    if (bytes[i] === BACKSLASH) i += 1;
    else if (bytes[i] === QUOTE) return i + 1;
  }
  throw new Error('unterminated string');
}

/**
 * End (exclusive) of the JSON value starting at `at`. The body already parsed, so only
 * nesting and strings need tracking; structural characters are ASCII, so bytes suffice.
 */
function valueEnd(bytes: Buffer, at: number): number {
  const first = bytes[at]!;
  if (first === QUOTE) return stringEnd(bytes, at);
  if (OPEN.has(first)) {
    let depth = 0;
    for (let i = at; i < bytes.length; i += 1) {
      const byte = bytes[i]!;
      if (byte === QUOTE) i = stringEnd(bytes, i) - 1;
      else if (OPEN.has(byte)) depth += 1;
      else if (CLOSE.has(byte) && --depth === 0) return i + 1;
    }
    throw new Error('unbalanced brackets');
  }
  let i = at;
  while (
    i < bytes.length &&
    !WHITESPACE.has(bytes[i]!) &&
    bytes[i] !== COMMA &&
    !CLOSE.has(bytes[i]!)
  )
    i += 1;
  return i;
}

/** [start, end) of each element of the array whose `[` is at `at`. */
function elementSpans(bytes: Buffer, at: number): [number, number][] {
  const spans: [number, number][] = [];
  let i = skipWhitespace(bytes, at + 1);
  if (bytes[i] === 0x5d) return spans;
  for (;;) {
    const end = valueEnd(bytes, i);
    spans.push([i, end]);
    i = skipWhitespace(bytes, end);
    if (bytes[i] !== COMMA) return spans;
    i = skipWhitespace(bytes, i + 1);
  }
}

/** Where the value of member `name` of the object whose `{` is at `at` starts; the last one wins, as in JSON.parse. */
function memberStart(bytes: Buffer, at: number, name: string): number | undefined {
  let found: number | undefined;
  let i = skipWhitespace(bytes, at + 1);
  if (bytes[i] === 0x7d) return undefined;
  for (;;) {
    const keyEnd = stringEnd(bytes, i);
    const key = JSON.parse(bytes.toString('utf8', i, keyEnd)) as string;
    i = skipWhitespace(bytes, skipWhitespace(bytes, keyEnd) + 1);
    if (key === name) found = i;
    i = skipWhitespace(bytes, valueEnd(bytes, i));
    if (bytes[i] !== COMMA) return found;
    i = skipWhitespace(bytes, i + 1);
  }
}

/**
 * The events of a batch, or undefined when the body is one event. A batch is a non-empty JSON
 * array of objects (`[{…},{…}]`), or an object whose `events` or else `data` member is one
 * (`{"events":[…]}`, `{"data":[…]}`). `{"data":{…}}`, the usual single-event envelope, is one
 * event; so is a list holding anything but objects (kept whole, and flagged by the worker if
 * nobody can read it).
 *
 * Each element keeps its own bytes, cut from the body, and its own identity: its own event id
 * when it has one; else, when the request named the message (a signed `webhook-id`, or the
 * envelope's `id`), that name and its position, `<id>#<index>`, identical on a retry of the
 * same batch; else the sha256 of its bytes, with the rules of an event without an id.
 */
export function splitBatch(
  rawBody: Buffer,
  body: unknown,
  signedEventId?: string,
): BatchElement[] | undefined {
  let list: Record<string, unknown>[] | undefined;
  let member: string | undefined;
  if (isEventList(body)) list = body;
  else if (isObject(body) && !isEventItself(body)) {
    member = BATCH_KEYS.find((key) => isEventList(body[key]));
    if (member !== undefined) list = body[member] as Record<string, unknown>[];
  }
  if (list === undefined) return undefined;
  // TextDecoder dropped a UTF-8 byte order mark before JSON.parse; skip it here too.
  let at = rawBody[0] === 0xef && rawBody[1] === 0xbb && rawBody[2] === 0xbf ? 3 : 0;
  at = skipWhitespace(rawBody, at);
  if (member !== undefined) at = memberStart(rawBody, at, member)!;
  const spans = elementSpans(rawBody, at);
  if (spans.length !== list.length) throw new Error('batch elements and byte spans disagree');
  const messageId = eventIdentity(rawBody, body, signedEventId).eventId;
  return list.map((element, index) => {
    const [start, end] = spans[index]!;
    const bytes = Buffer.from(rawBody.subarray(start, end));
    const own = eventIdentity(bytes, element);
    const dedupeKey =
      own.eventId === undefined && messageId !== undefined
        ? eventKey(`${messageId}#${index}`)
        : own.dedupeKey;
    return { ...own, dedupeKey, rawBody: bytes };
  });
}
