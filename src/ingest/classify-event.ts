import { isRefundKind, kindOfId, type RefundKind, type ResourceKind } from '../resources/index.ts';
import {
  isLedgerKind,
  kindOfEventType,
  numericId,
  text,
  type IgnoredSubject,
} from './resource-naming.ts';
import { handleFromPath, type PathHandle } from './resource-path.ts';

export { kindOfEventType } from './resource-naming.ts';

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

/**
 * Fields that hold an object's own id. The explicit names come first, so that a top-level
 * `resourceId` beats the bare `id`, which in an envelope is usually the event's.
 */
const OWN_ID_KEYS = ['resourceId', 'resource_id', 'objectId', 'object_id', 'id'];

/** Fields that say what kind of resource the object holding them is (`resourceType: "refund"`). */
const DECLARED_KIND_KEYS = ['resourceType', 'resource_type', 'objectType', 'object_type'];

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

/** Where a resource usually sits in an event envelope, most specific first; `[]` is the envelope. */
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

/** CloudEvents attributes that may name the resource; `subject` is meant for it, `source` may. */
const PATH_KEYS = ['subject', 'source'];

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(body: Json, path: readonly string[]): Json | undefined {
  let current: unknown = body;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return isObject(current) ? current : undefined;
}

interface Candidate {
  readonly object: Json;
  /** The body itself: a bare `id` here is usually the event's, not the resource's. */
  readonly envelope: boolean;
  /** Set by a `resourceType`-like field, or by the kind-named key the object sits under. */
  readonly declaredKind?: ResourceKind | IgnoredSubject;
  /** True when `declaredKind` comes from a `resourceType`-like field of the object itself. */
  readonly declaredByField: boolean;
  readonly ownId?: string;
  readonly ownKind?: ResourceKind;
  readonly ownNumeric?: string;
}

function declaredKindOf(object: Json): ResourceKind | IgnoredSubject | undefined {
  for (const key of DECLARED_KIND_KEYS) {
    const value = text(object[key]);
    const kind = value ? kindOfEventType(value) : undefined;
    if (kind) return kind;
  }
  return undefined;
}

/** Every object in the usual places, and every object nested under a kind-named key. */
function candidates(body: Json): Candidate[] {
  const seen = new Set<Json>();
  const found: Candidate[] = [];
  const visit = (object: Json | undefined, depth: number, under?: ResourceKind) => {
    if (!object || seen.has(object) || depth > 3) return;
    seen.add(object);
    const ownValues = OWN_ID_KEYS.map((key) => object[key]);
    const prefixed = ownValues.find((value) => kindOfId(value) !== undefined);
    const numeric = ownValues.map(numericId).find((value) => value !== undefined);
    const byField = declaredKindOf(object);
    const declaredKind = byField ?? under;
    found.push({
      object,
      envelope: object === body,
      declaredByField: byField !== undefined,
      ...(declaredKind ? { declaredKind } : {}),
      ...(prefixed ? { ownId: text(prefixed)!, ownKind: kindOfId(prefixed)! } : {}),
      ...(numeric ? { ownNumeric: numeric } : {}),
    });
    for (const [kind, keys] of Object.entries(KIND_KEYS) as [ResourceKind, readonly string[]][]) {
      for (const key of keys) if (isObject(object[key])) visit(object[key], depth + 1, kind);
    }
  };
  for (const path of ENVELOPE_PATHS) visit(at(body, path), 0);
  return found;
}

/** An id stated under a kind-named key (`transferId: 'tr_…'`, `refund_id: 1001`). */
function namedId(object: Json, kind: ResourceKind): string | undefined {
  for (const key of KIND_KEYS[kind]) {
    const value = object[key];
    if (isRefundKind(kind)) {
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
function refundKindByShape(object: Json): RefundKind | undefined {
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

function pathHandles(body: Json): PathHandle[] {
  return PATH_KEYS.map((key) => handleFromPath(body[key])).filter(
    (handle): handle is PathHandle => handle !== undefined,
  );
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

/** Kind-named keys for a refund type: its own kind's first, then the other refund kind's. */
function refundKeys(typed: RefundKind): ReadonlyArray<readonly [RefundKind, ResourceKind]> {
  return typed === 'refund'
    ? [
        ['refund', 'refund'],
        ['payment_refund', 'payment_refund'],
      ]
    : [
        ['payment_refund', 'payment_refund'],
        ['payment_refund', 'refund'],
      ];
}

/** A refund's id when the type says refund. Rules 1 to 4 of "How an event is classified". */
function refundNamed(
  typed: RefundKind,
  found: readonly Candidate[],
  handles: readonly PathHandle[],
  eventType: string | undefined,
): EventClassification | undefined {
  const refundish = (c: Candidate) => c.declaredKind === undefined || isRefundKind(c.declaredKind);
  // A `resourceType` field is the object's own word; a key it sits under only says "a refund".
  const kindOf = (c: Candidate): RefundKind =>
    c.declaredByField && isRefundKind(c.declaredKind) ? c.declaredKind : typed;
  // 1. A kind-named key (`refundId`, `refund_id`, `paymentRefundId`) says whose id it is.
  for (const c of found.filter(refundish)) {
    for (const [kind, keysOf] of refundKeys(typed)) {
      const id = namedId(c.object, keysOf);
      if (id) return resource(kind, id, c.object, eventType);
    }
  }
  // 2. The own id of a resource object inside the envelope (`data.object.id`, `data.id`).
  const inner = found.find((c) => !c.envelope && c.ownNumeric && refundish(c));
  if (inner) return resource(kindOf(inner), inner.ownNumeric, inner.object, eventType);
  // 3. The CloudEvents subject or source (`refunds/1006`, or a bare `1006`).
  const handle = handles.find((h) => h.kind === undefined || isRefundKind(h.kind));
  if (handle) {
    const kind = isRefundKind(handle.kind) ? handle.kind : typed;
    return resource(kind, handle.id, undefined, eventType);
  }
  // 4. Last, the envelope's own id: a refund sent flat, with no event id beside it.
  const flat = found.find((c) => c.envelope && c.ownNumeric && refundish(c));
  if (flat) return resource(kindOf(flat), flat.ownNumeric, flat.object, eventType);
  return undefined;
}

/** A transfer's, payment intent's or link's id when the type names that kind. */
function prefixedNamed(
  typed: ResourceKind,
  found: readonly Candidate[],
  handles: readonly PathHandle[],
  eventType: string | undefined,
): EventClassification | undefined {
  for (const c of found) {
    const id = c.ownKind === typed ? c.ownId : namedId(c.object, typed);
    if (id) return resource(typed, id, c.object, eventType);
  }
  const handle = handles.find((h) => h.kind === typed);
  return handle ? resource(typed, handle.id, undefined, eventType) : undefined;
}

/**
 * Reads a raw webhook body and names the resource it is about. The rules, in order, are
 * documented in docs/processing.md ("How an event is classified"):
 * - the kind comes from the event type, else from a `resourceType`-like field;
 * - when that kind is a refund, a kind-named key beats an object's own id, which beats the
 *   CloudEvents subject, which beats the envelope's bare `id` (usually the event's);
 * - otherwise ids are trusted over type names (a type is free text; a prefix is documented);
 * - an untyped object that only points at a resource names it; a typed one does not.
 */
export function classifyEvent(raw: unknown): EventClassification {
  const body = parseBody(raw);
  if (typeof body === 'string') return { outcome: 'unclassified', reason: body };
  const eventType = eventTypeOf(body);
  const withType = eventType ? { eventType } : {};
  const found = candidates(body);
  const handles = pathHandles(body);
  const declared = found.find((c) => c.declaredByField)?.declaredKind;
  const typed = (eventType ? kindOfEventType(eventType) : undefined) ?? declared;

  if (typed === 'submerchant' || typed === 'kyb') {
    return { outcome: 'ignored', subject: typed, ...withType };
  }
  if (isLedgerKind(typed)) {
    const named = isRefundKind(typed)
      ? refundNamed(typed, found, handles, eventType)
      : prefixedNamed(typed, found, handles, eventType);
    if (named) return named;
  }
  // The type names none of our kinds, or none of that kind's ids: ids speak for themselves.
  const own = found.find((c) => c.ownKind);
  if (own?.ownKind) return resource(own.ownKind, own.ownId, own.object, eventType);
  const handle = handles.find((h) => h.kind !== undefined);
  if (handle?.kind) return resource(handle.kind, handle.id, undefined, eventType);
  for (const c of found) {
    if (!c.ownNumeric) continue;
    const kind = isRefundKind(c.declaredKind) ? c.declaredKind : refundKindByShape(c.object);
    if (kind) return resource(kind, c.ownNumeric, c.object, eventType);
  }
  // An untyped event whose object points at a resource names it (a checkout session naming
  // its payment intent), unless the object has a number of its own: that is likely a refund we
  // could not place. A typed event that only points at another kind (a refund naming its
  // transfer) is not about that kind.
  if (!typed) {
    for (const c of found.filter((candidate) => !candidate.ownNumeric)) {
      for (const kind of Object.keys(KIND_KEYS) as ResourceKind[]) {
        const id = namedId(c.object, kind);
        if (id) return resource(kind, id, c.object, eventType);
      }
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
      reason: `the ${eventType ? `event type "${eventType}"` : 'resource type'} names a ${typed.replace('_', ' ')} but the body gives no usable id`,
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
