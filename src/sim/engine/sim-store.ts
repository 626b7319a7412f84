import type {
  FailureCause,
  ItemKind,
  ItemResources,
  Mode,
  WebhookResource,
} from './sim-resources.ts';

export interface StatusChange {
  readonly status: string;
  /** Simulator-clock time of the change, ISO 8601 UTC with milliseconds. */
  readonly at: string;
}

/** What the sandbox decided for an item when it was created (see sandbox-outcomes.ts). */
export interface OutcomePlan {
  /** The status the item settles to on its own. */
  final: string;
  failureCause?: FailureCause;
  /** How long the item waits in its last non-final status. */
  settleAfterMs?: number;
  /** Payment intents: the attempt waits for an OTP (`nextAction.type` otp). */
  otp?: boolean;
  /** Refunds: settle to this status once pending (e.g. pending_manual). */
  refundOutcome?: string;
  /** Payment intents made through a payment link: the link's id. */
  paymentLinkId?: string;
}

/** One resource with its ground truth: kind, mode and every status it went through. */
export interface SimItem<K extends ItemKind = ItemKind> {
  readonly kind: K;
  /** The resource id as a string (refund, payment-refund and kyb ids are numbers). */
  readonly key: string;
  readonly mode: Mode;
  resource: ItemResources[K];
  readonly history: StatusChange[];
  plan: OutcomePlan;
}

/** A registered webhook with its signing secret (never served back after creation). */
export interface StoredWebhook {
  resource: WebhookResource;
  secret: string;
}

/** All simulator state in Maps: by id, by kind (creation order) and by reference fields. */
export class SimStore {
  private readonly byKey = new Map<string, SimItem>();
  private readonly byKind = new Map<ItemKind, SimItem[]>();
  private readonly byReference = new Map<string, SimItem[]>();
  /** Per kind and mode, ascending by (createdAt, id): list windows are binary searches. */
  private readonly byCreatedAt = new Map<string, SimItem[]>();
  readonly webhooks = new Map<string, StoredWebhook>();
  private numericId = 1000;

  add<K extends ItemKind>(item: SimItem<K>, references: Record<string, string> = {}): SimItem<K> {
    if (this.byKey.has(item.key)) throw new Error(`duplicate simulator id ${item.key}`);
    this.byKey.set(item.key, item as SimItem);
    const ofKind = this.byKind.get(item.kind) ?? [];
    ofKind.push(item as SimItem);
    this.byKind.set(item.kind, ofKind);
    this.insertByCreatedAt(item as SimItem);
    for (const [field, value] of Object.entries(references)) this.index(item, field, value);
    return item;
  }

  /** Adds `item` to the index of `field` = `value` (for example a transfer's reference). */
  index(item: SimItem, field: string, value: string): void {
    if (value === '') return;
    const key = `${item.kind}\u0000${field}\u0000${value}`;
    const found = this.byReference.get(key);
    if (found) found.push(item);
    else this.byReference.set(key, [item]);
  }

  /** Removes `item` from the index of `field` = `value`. */
  unindex(item: SimItem, field: string, value: string): void {
    const key = `${item.kind}\u0000${field}\u0000${value}`;
    const remaining = (this.byReference.get(key) ?? []).filter((other) => other !== item);
    if (remaining.length > 0) this.byReference.set(key, remaining);
    else this.byReference.delete(key);
  }

  get<K extends ItemKind>(kind: K, key: string | number): SimItem<K> | undefined {
    const item = this.byKey.get(String(key));
    return item?.kind === kind ? (item as SimItem<K>) : undefined;
  }

  /** Any item by id, whatever its kind. */
  find(key: string | number): SimItem | undefined {
    return this.byKey.get(String(key));
  }

  /** Items of `kind` in creation order. */
  list<K extends ItemKind>(kind: K): readonly SimItem<K>[] {
    return (this.byKind.get(kind) ?? []) as SimItem<K>[];
  }

  all(): SimItem[] {
    return [...this.byKey.values()];
  }

  /**
   * Items of `kind` and `mode` created in [fromIso, toIso] (both inclusive), oldest first.
   * Bounds must be `toISOString()` strings: ISO 8601 UTC with milliseconds sorts as text.
   */
  createdBetween<K extends ItemKind>(
    kind: K,
    mode: Mode,
    fromIso: string,
    toIso: string,
  ): SimItem<K>[] {
    const sorted = this.byCreatedAt.get(`${kind}|${mode}`) ?? [];
    const start = lowerBound(sorted, (item) => createdAtOf(item) >= fromIso);
    const end = lowerBound(sorted, (item) => createdAtOf(item) > toIso);
    return sorted.slice(start, end) as SimItem<K>[];
  }

  withReference<K extends ItemKind>(kind: K, field: string, value: string): readonly SimItem<K>[] {
    return (this.byReference.get(`${kind}\u0000${field}\u0000${value}`) ?? []) as SimItem<K>[];
  }

  /** Refund, payment-refund and kyb ids: one increasing sequence, so they never collide. */
  nextNumericId(): number {
    this.numericId += 1;
    return this.numericId;
  }

  private insertByCreatedAt(item: SimItem): void {
    const key = `${item.kind}|${item.mode}`;
    const sorted = this.byCreatedAt.get(key) ?? [];
    this.byCreatedAt.set(key, sorted);
    const createdAt = createdAtOf(item);
    const last = sorted.at(-1);
    if (
      !last ||
      createdAtOf(last) < createdAt ||
      (createdAtOf(last) === createdAt && last.key < item.key)
    ) {
      sorted.push(item); // the common case: created now, after everything else
      return;
    }
    const at = lowerBound(
      sorted,
      (other) =>
        createdAtOf(other) > createdAt ||
        (createdAtOf(other) === createdAt && other.key > item.key),
    );
    sorted.splice(at, 0, item);
  }

  get size(): number {
    return this.byKey.size;
  }

  clear(): void {
    this.byKey.clear();
    this.byKind.clear();
    this.byReference.clear();
    this.byCreatedAt.clear();
    this.webhooks.clear();
    this.numericId = 1000;
  }
}

function createdAtOf(item: SimItem): string {
  return (item.resource as { createdAt: string }).createdAt;
}

/** The first index whose item satisfies `isAtOrAfter` (which must be monotonic over `sorted`). */
function lowerBound(sorted: readonly SimItem[], isAtOrAfter: (item: SimItem) => boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (isAtOrAfter(sorted[middle] as SimItem)) high = middle;
    else low = middle + 1;
  }
  return low;
}
