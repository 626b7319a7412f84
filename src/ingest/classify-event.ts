import type { ResourceKind } from '../queues/index.ts';

/**
 * What a webhook is about. The service documents no event payloads, so this is a best
 * reading: enough to know which resource to fetch. Nothing here is ever booked.
 */
export type EventClassification =
  | {
      readonly outcome: 'resource';
      readonly kind: ResourceKind;
      /** `pi_…`, `tr_…`, `pl_…`, or a refund id as text. */
      readonly id?: string;
      /** Transfer `reference` or payment `purchaseReference`, when the body carries one. */
      readonly reference?: string;
      readonly eventType?: string;
    }
  | {
      /** A resource paysync does not keep books for (submerchant, KYB). */
      readonly outcome: 'ignored';
      readonly subject: string;
      readonly eventType?: string;
    }
  | { readonly outcome: 'unclassified'; readonly reason: string; readonly eventType?: string };

type Json = Record<string, unknown>;
type IgnoredSubject = 'submerchant' | 'kyb';

const PREFIX_KIND: ReadonlyArray<readonly [string, ResourceKind]> = [
  ['pi_', 'payment_intent'],
  ['tr_', 'transfer'],
  ['pl_', 'payment_link'],
];

/** Fields that hold the resource's own id. */
const OWN_ID_KEYS = ['id', 'resourceId', 'resource_id', 'objectId', 'object_id'];

/** Fields that name a resource by kind; their value is an id or a nested object. */
const KIND_KEYS: Readonly<Record<ResourceKind, readonly string[]>> = {
  payment_intent: [
    'paymentIntent',
    'payment_intent',
    'paymentIntentId',
    'payment_intent_id',
    'intentId',
    'intent',
  ],
  transfer: ['transfer', 'transferId', 'transfer_id', 'payout', 'payoutId'],
  refund: ['refund', 'refundId', 'refund_id'],
  payment_refund: ['paymentRefund', 'payment_refund', 'paymentRefundId', 'payment_refund_id'],
  payment_link: ['paymentLink', 'payment_link', 'paymentLinkId', 'payment_link_id', 'linkId'],
};

/** Where a resource usually sits in an event envelope, most specific first. */
const ENVELOPE_PATHS: readonly (readonly string[])[] = [
  ['data', 'object'],
  ['data', 'resource'],
  ['data', 'payload'],
  ['data'],
  ['resource'],
  ['object'],
  ['payload'],
  [],
];

const TYPE_KEYS = ['type', 'event', 'name', 'eventType', 'event_type', 'eventName', 'topic'];

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(body: Json, path: readonly string[]): Json | undefined {
  let current: unknown = body;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return isObject(current) ? current : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function kindOfId(value: unknown): ResourceKind | undefined {
  const id = text(value);
  if (!id) return undefined;
  return PREFIX_KIND.find(([prefix]) => id.startsWith(prefix) && id.length > prefix.length)?.[1];
}

/** Refund ids are numbers; some senders quote them. */
function numericId(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  const id = text(value);
  return id && /^\d{1,15}$/.test(id) ? id : undefined;
}

/** `paymentIntent.Succeeded`, `payment-intent succeeded` → `payment_intent.succeeded`. */
function normaliseType(type: string): string {
  return type
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** The kind an event type names, checked most specific first (`payment_refund` before `refund`). */
export function kindOfEventType(type: string): ResourceKind | IgnoredSubject | undefined {
  const t = normaliseType(type);
  if (/payment_?refund|payments_refund|payment\.refund/.test(t)) return 'payment_refund';
  if (/refund/.test(t)) return 'refund';
  if (/(payment|subscription)_?link|(^|[._])link([._]|$)/.test(t)) return 'payment_link';
  if (/submerchant|sub_merchant/.test(t)) return 'submerchant';
  if (/kyb|compliance/.test(t)) return 'kyb';
  if (/transfer|payout/.test(t)) return 'transfer';
  if (/payment_?intent|(^|[._])payment([._]|$)|terminal|charge/.test(t)) return 'payment_intent';
  return undefined;
}

interface Candidate {
  readonly object: Json;
  readonly ownId?: string;
  readonly ownKind?: ResourceKind;
  readonly ownNumeric?: string;
}

/** Every object in the usual places, and every object nested under a kind-named key. */
function candidates(body: Json): Candidate[] {
  const seen = new Set<Json>();
  const found: Candidate[] = [];
  const visit = (object: Json | undefined, depth: number) => {
    if (!object || seen.has(object) || depth > 3) return;
    seen.add(object);
    const ownValues = OWN_ID_KEYS.map((key) => object[key]);
    const prefixed = ownValues.find((value) => kindOfId(value) !== undefined);
    const numeric = ownValues.map(numericId).find((value) => value !== undefined);
    found.push({
      object,
      ...(prefixed ? { ownId: text(prefixed)!, ownKind: kindOfId(prefixed)! } : {}),
      ...(numeric ? { ownNumeric: numeric } : {}),
    });
    for (const keys of Object.values(KIND_KEYS)) {
      for (const key of keys) if (isObject(object[key])) visit(object[key] as Json, depth + 1);
    }
  };
  for (const path of ENVELOPE_PATHS) visit(at(body, path), 0);
  return found;
}

/** An id stated under a kind-named key (`transferId: 'tr_…'`, `refund_id: 1001`). */
function namedId(object: Json, kind: ResourceKind): string | undefined {
  for (const key of KIND_KEYS[kind]) {
    const value = object[key];
    if (kind === 'refund' || kind === 'payment_refund') {
      const id = numericId(value);
      if (id) return id;
    } else if (kindOfId(value) === kind) {
      return text(value);
    }
  }
  return undefined;
}

function referenceFor(kind: ResourceKind, object: Json | undefined): string | undefined {
  if (!object) return undefined;
  if (kind === 'transfer') return text(object.reference) ?? text(object.transferReference);
  if (kind === 'payment_intent' || kind === 'payment_link') {
    return text(object.purchaseReference) ?? text(object.purchase_reference);
  }
  return undefined;
}

/** A refund of a transfer carries the transfer id; a payment refund the payment intent id. */
function refundKindByShape(object: Json): ResourceKind | undefined {
  const paymentIntent =
    kindOfId(object.paymentIntentId) === 'payment_intent' ||
    kindOfId(object.payment_intent_id) === 'payment_intent' ||
    kindOfId(object.paymentId) === 'payment_intent';
  const transfer =
    kindOfId(object.transactionId) === 'transfer' ||
    kindOfId(object.transaction_id) === 'transfer' ||
    kindOfId(object.transferId) === 'transfer';
  if (paymentIntent && !transfer) return 'payment_refund';
  if (transfer && !paymentIntent) return 'refund';
  return undefined;
}

function parseBody(raw: unknown): Json | string {
  let value = raw;
  if (Buffer.isBuffer(value)) value = value.toString('utf8');
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return 'the body is not JSON';
    }
  }
  if (Array.isArray(value)) return `the body is a list of ${value.length} items, not one event`;
  if (!isObject(value)) return 'the body is not a JSON object';
  return value;
}

function eventTypeOf(body: Json): string | undefined {
  for (const key of TYPE_KEYS) {
    const value = text(body[key]);
    if (value) return value;
  }
  const nested = at(body, ['data']);
  return nested ? text(nested.type) : undefined;
}

function resource(
  kind: ResourceKind,
  id: string | undefined,
  object: Json | undefined,
  eventType: string | undefined,
): EventClassification {
  const reference = referenceFor(kind, object);
  return {
    outcome: 'resource',
    kind,
    ...(id ? { id } : {}),
    ...(reference ? { reference } : {}),
    ...(eventType ? { eventType } : {}),
  };
}

/**
 * Reads a raw webhook body and names the resource it is about. Ids are trusted over type
 * names (a type is free text; an id prefix is documented), except that a refund's own id is
 * a number, so a refund type with a numeric id wins over the `tr_…` the refund points at.
 */
export function classifyEvent(raw: unknown): EventClassification {
  const body = parseBody(raw);
  if (typeof body === 'string') return { outcome: 'unclassified', reason: body };
  const eventType = eventTypeOf(body);
  const typed = eventType ? kindOfEventType(eventType) : undefined;
  const withType = eventType ? { eventType } : {};
  const found = candidates(body);

  if (typed === 'submerchant' || typed === 'kyb') {
    return { outcome: 'ignored', subject: typed, ...withType };
  }
  if (typed === 'refund' || typed === 'payment_refund') {
    for (const c of found) {
      const id = c.ownNumeric ?? namedId(c.object, typed);
      if (id) return resource(typed, id, c.object, eventType);
    }
  }
  if (typed === 'payment_intent' || typed === 'transfer' || typed === 'payment_link') {
    for (const c of found) {
      const id = c.ownKind === typed ? c.ownId : namedId(c.object, typed);
      if (id) return resource(typed, id, c.object, eventType);
    }
  }
  const own = found.find((c) => c.ownKind);
  if (own?.ownKind) return resource(own.ownKind, own.ownId, own.object, eventType);
  for (const c of found) {
    const kind = c.ownNumeric ? refundKindByShape(c.object) : undefined;
    if (kind) return resource(kind, c.ownNumeric, c.object, eventType);
  }
  // An untyped object with an id of its own is some other resource that merely points at one.
  for (const c of found.filter((candidate) => !candidate.ownNumeric)) {
    for (const kind of Object.keys(KIND_KEYS) as ResourceKind[]) {
      const id = namedId(c.object, kind);
      if (id) return resource(kind, id, c.object, eventType);
    }
  }
  if (typed === 'transfer' || typed === 'payment_intent') {
    for (const c of found) {
      if (referenceFor(typed, c.object)) return resource(typed, undefined, c.object, eventType);
    }
  }
  if (typed) {
    return {
      outcome: 'unclassified',
      reason: `the event type "${eventType}" names a ${typed.replace('_', ' ')} but the body gives no usable id`,
      ...withType,
    };
  }
  return {
    outcome: 'unclassified',
    reason: eventType
      ? `unknown event type "${eventType}" and no resource id in the body`
      : 'no event type and no resource id in the body',
    ...withType,
  };
}
