import type {
  FailureCause,
  ItemKind,
  ItemResources,
  Mode,
  WebhookResource,
} from './sim-resources.ts';
import type { ColdItemRow, ColdItemStub, ColdStore } from './cold-store.ts';

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

/** Every item at one instant: `[seq, key]` of those in the cold store, the others in memory. */
export interface ItemSnapshot {
  readonly cold: readonly [number, string][];
  readonly hot: readonly SimItem[];
}

/** Kinds that grow with traffic; settled ones move out of memory (see {@link SimStore.moveOut}). */
const MOVABLE_KINDS: ReadonlySet<ItemKind> = new Set([
  'payment_intent',
  'transfer',
  'refund',
  'payment_refund',
]);

/**
 * An item resting in the cold store, as a bulk read returns it: its body is read and parsed on
 * first use, so a list window over months of items costs a row of the index each, not a parse.
 * It is a copy: to change an item, take it with {@link SimStore.get} or {@link SimStore.find}.
 */
class ColdItem implements SimItem {
  private parsed:
    { resource: ItemResources[ItemKind]; history: StatusChange[]; plan: OutcomePlan } | undefined;

  constructor(
    private readonly cold: ColdStore,
    readonly seq: number,
    readonly kind: ItemKind,
    readonly key: string,
    readonly mode: Mode,
    body?: string,
  ) {
    if (body !== undefined) this.parsed = JSON.parse(body) as ColdItem['parsed'];
  }

  private get body(): NonNullable<ColdItem['parsed']> {
    this.parsed ??= JSON.parse(this.cold.bodyOf(this.seq)) as ColdItem['parsed'];
    return this.parsed as NonNullable<ColdItem['parsed']>;
  }

  get resource(): ItemResources[ItemKind] {
    return this.body.resource;
  }

  set resource(resource: ItemResources[ItemKind]) {
    this.body.resource = resource;
  }

  get history(): StatusChange[] {
    return this.body.history;
  }

  get plan(): OutcomePlan {
    return this.body.plan;
  }

  set plan(plan: OutcomePlan) {
    this.body.plan = plan;
  }
}

/**
 * All simulator state: items by id, by kind (creation order), by reference fields and by
 * creation time. Settled items that have not changed for a while move to the cold store (a
 * SQLite file of the simulator's own) and answer from there; `get` and `find` bring one back
 * into memory (a caller may change it), while `peek` and the bulk reads (`list`, `createdBetween`,
 * `withReference`, `all`) hand out read-only copies of the ones resting there.
 */
export class SimStore {
  private readonly byKey = new Map<string, SimItem>();
  private readonly byKind = new Map<ItemKind, SimItem[]>();
  private readonly byReference = new Map<string, SimItem[]>();
  /** Per kind and mode, ascending by (createdAt, id): list windows are binary searches. */
  private readonly byCreatedAt = new Map<string, SimItem[]>();
  /** Creation order of the items in memory (the cold store keeps it as a column). */
  private readonly seqOf = new WeakMap<SimItem, number>();
  /** The index entries of each item in memory, so moving it out can take them along. */
  private readonly referencesOf = new Map<string, [string, string][]>();
  readonly webhooks = new Map<string, StoredWebhook>();
  private numericId = 1000;
  private nextSeq = 0;

  constructor(private readonly cold: ColdStore) {}

  add<K extends ItemKind>(item: SimItem<K>, references: Record<string, string> = {}): SimItem<K> {
    if (this.byKey.has(item.key) || this.cold.has(item.key)) {
      throw new Error(`duplicate simulator id ${item.key}`);
    }
    this.nextSeq += 1;
    this.keep(item as SimItem, this.nextSeq);
    for (const [field, value] of Object.entries(references)) this.index(item, field, value);
    return item;
  }

  /** Adds `item` to the index of `field` = `value` (for example a transfer's reference). */
  index(item: SimItem, field: string, value: string): void {
    if (value === '') return;
    const key = referenceKey(item.kind, field, value);
    const found = this.byReference.get(key);
    if (found) found.push(item);
    else this.byReference.set(key, [item]);
    const entries = this.referencesOf.get(item.key);
    if (entries) entries.push([field, value]);
    else this.referencesOf.set(item.key, [[field, value]]);
  }

  /** Removes `item` (which must be in memory: take it with `get` first) from an index. */
  unindex(item: SimItem, field: string, value: string): void {
    const key = referenceKey(item.kind, field, value);
    const remaining = (this.byReference.get(key) ?? []).filter((other) => other !== item);
    if (remaining.length > 0) this.byReference.set(key, remaining);
    else this.byReference.delete(key);
    const entries = (this.referencesOf.get(item.key) ?? []).filter(
      ([f, v]) => f !== field || v !== value,
    );
    this.referencesOf.set(item.key, entries);
  }

  get<K extends ItemKind>(kind: K, key: string | number): SimItem<K> | undefined {
    const item = this.find(key);
    return item?.kind === kind ? (item as SimItem<K>) : undefined;
  }

  /** Any item by id, whatever its kind; one resting in the cold store comes back to memory. */
  find(key: string | number): SimItem | undefined {
    const id = String(key);
    return this.byKey.get(id) ?? this.bringBack(id);
  }

  /**
   * An item by id for reading only (an API answer): one at rest in the cold store is answered
   * from there as a copy, without bringing it back into memory.
   */
  peek<K extends ItemKind>(kind: K, key: string | number): SimItem<K> | undefined {
    const id = String(key);
    const hot = this.byKey.get(id);
    if (hot) return hot.kind === kind ? (hot as SimItem<K>) : undefined;
    const row = this.cold.itemByKey(id);
    if (!row || row.kind !== kind) return undefined;
    const copy = new ColdItem(this.cold, row.seq, kind, row.key, row.mode as Mode, row.body);
    return copy as unknown as SimItem<K>;
  }

  /** Items of `kind` in creation order. */
  list<K extends ItemKind>(kind: K): readonly SimItem<K>[] {
    const hot = (this.byKind.get(kind) ?? []) as SimItem<K>[];
    if (!MOVABLE_KINDS.has(kind)) return hot;
    const cold = this.cold.ofKind(kind).map((stub) => this.copyOf(stub) as unknown as SimItem<K>);
    return cold.length === 0 ? hot : this.mergeBySeq(cold, hot);
  }

  /** Every item in creation order. */
  all(): SimItem[] {
    const cold = this.cold
      .items()
      .map(
        (row) =>
          new ColdItem(
            this.cold,
            row.seq,
            row.kind as ItemKind,
            row.key,
            row.mode as Mode,
            row.body,
          ),
      );
    return this.mergeBySeq(
      cold,
      [...this.byKey.values()].sort((a, b) => this.seq(a) - this.seq(b)),
    );
  }

  /**
   * What every item (of `kind`) is now, to be read page by page with {@link SimStore.readSnapshot}
   * (a ground truth too large to build in one piece). Moving out must wait until it is read.
   */
  snapshot(kind?: ItemKind): ItemSnapshot {
    const hot = [...this.byKey.values()]
      .filter((item) => kind === undefined || item.kind === kind)
      .sort((a, b) => this.seq(a) - this.seq(b));
    return { cold: this.cold.itemSeqs(kind), hot };
  }

  /** The items of a snapshot in creation order, reading the cold store `pageSize` at a time. */
  *readSnapshot(snapshot: ItemSnapshot, pageSize = 500): Generator<SimItem> {
    const { cold, hot } = snapshot;
    let h = 0;
    for (let start = 0; start < cold.length; start += pageSize) {
      const page = cold.slice(start, start + pageSize);
      const rows = this.cold.itemsBetween(page[0]![0], page.at(-1)![0]);
      for (const [seq, key] of page) {
        while (h < hot.length && this.seq(hot[h]!) < seq) yield hot[h++]!;
        const row = rows.get(seq);
        // Brought back into memory since the snapshot: it is read from there.
        const item = row
          ? new ColdItem(this.cold, seq, row.kind as ItemKind, row.key, row.mode as Mode, row.body)
          : this.byKey.get(key);
        if (item) yield item;
      }
    }
    while (h < hot.length) yield hot[h++]!;
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
    const hot = sorted.slice(start, end) as SimItem<K>[];
    if (!MOVABLE_KINDS.has(kind)) return hot;
    const cold = this.cold.window(kind, mode, fromIso, toIso);
    if (cold.length === 0) return hot;
    // Both runs are sorted by (createdAt, id); merge them.
    const merged: SimItem<K>[] = [];
    let h = 0;
    for (const stub of cold) {
      while (h < hot.length && isBefore(hot[h] as SimItem, stub.createdAt, stub.key)) {
        merged.push(hot[h] as SimItem<K>);
        h += 1;
      }
      merged.push(this.copyOf(stub) as unknown as SimItem<K>);
    }
    for (; h < hot.length; h += 1) merged.push(hot[h] as SimItem<K>);
    return merged;
  }

  withReference<K extends ItemKind>(kind: K, field: string, value: string): readonly SimItem<K>[] {
    const hot = (this.byReference.get(referenceKey(kind, field, value)) ?? []) as SimItem<K>[];
    if (!MOVABLE_KINDS.has(kind)) return hot;
    const cold = this.cold
      .withReference(kind, field, value)
      .map((stub) => this.copyOf(stub) as unknown as SimItem<K>);
    if (cold.length === 0) return hot;
    return this.mergeBySeq(
      cold,
      [...hot].sort((a, b) => this.seq(a) - this.seq(b)),
    );
  }

  /** Refund, payment-refund and kyb ids: one increasing sequence, so they never collide. */
  nextNumericId(): number {
    this.numericId += 1;
    return this.numericId;
  }

  /**
   * Moves to the cold store every item of a kind that grows with traffic whose `isSettled`
   * holds and whose last change (status or `updatedAt`) is at or before `cutoffIso`.
   * Returns how many moved.
   */
  moveOut(cutoffIso: string, isSettled: (item: SimItem) => boolean): number {
    const leaving = new Set<SimItem>();
    const rows: ColdItemRow[] = [];
    for (const item of this.byKey.values()) {
      if (!MOVABLE_KINDS.has(item.kind) || lastChangeOf(item) > cutoffIso || !isSettled(item)) {
        continue;
      }
      leaving.add(item);
      rows.push({
        seq: this.seq(item),
        key: item.key,
        kind: item.kind,
        mode: item.mode,
        createdAt: createdAtOf(item),
        body: JSON.stringify({ resource: item.resource, history: item.history, plan: item.plan }),
        references: this.referencesOf.get(item.key) ?? [],
      });
    }
    if (rows.length === 0) return 0;
    this.cold.putItems(rows);
    const touchedReferences = new Set<string>();
    for (const item of leaving) {
      this.byKey.delete(item.key);
      for (const [field, value] of this.referencesOf.get(item.key) ?? []) {
        touchedReferences.add(referenceKey(item.kind, field, value));
      }
      this.referencesOf.delete(item.key);
    }
    for (const key of touchedReferences) {
      const remaining = (this.byReference.get(key) ?? []).filter((item) => !leaving.has(item));
      if (remaining.length > 0) this.byReference.set(key, remaining);
      else this.byReference.delete(key);
    }
    for (const map of [this.byKind, this.byCreatedAt] as Map<unknown, SimItem[]>[]) {
      for (const [key, items] of map)
        map.set(
          key,
          items.filter((item) => !leaving.has(item)),
        );
    }
    return rows.length;
  }

  /** Items in memory and at rest in the cold store. */
  counts(): { inMemory: number; moved: number } {
    return { inMemory: this.byKey.size, moved: this.cold.itemCount };
  }

  private keep(item: SimItem, seq: number): void {
    this.seqOf.set(item, seq);
    this.byKey.set(item.key, item);
    const ofKind = this.byKind.get(item.kind) ?? [];
    this.byKind.set(item.kind, ofKind);
    if ((ofKind.at(-1) && this.seq(ofKind.at(-1) as SimItem) > seq) === true) {
      ofKind.splice(
        lowerBound(ofKind, (other) => this.seq(other) > seq),
        0,
        item,
      );
    } else {
      ofKind.push(item);
    }
    this.insertByCreatedAt(item);
  }

  /** Takes an item out of the cold store and back into memory, with its index entries. */
  private bringBack(key: string): SimItem | undefined {
    const row = this.cold.itemByKey(key);
    if (!row) return undefined;
    const parsed = JSON.parse(row.body) as Pick<SimItem, 'resource' | 'history' | 'plan'>;
    const item: SimItem = {
      kind: row.kind as ItemKind,
      key: row.key,
      mode: row.mode as Mode,
      resource: parsed.resource,
      history: parsed.history,
      plan: parsed.plan,
    };
    const references = this.cold.takeItem(row.seq);
    this.keep(item, row.seq);
    for (const [field, value] of references) this.index(item, field, value);
    return item;
  }

  private copyOf(stub: ColdItemStub): ColdItem {
    return new ColdItem(this.cold, stub.seq, stub.kind as ItemKind, stub.key, stub.mode as Mode);
  }

  private seq(item: SimItem): number {
    return item instanceof ColdItem ? item.seq : (this.seqOf.get(item) ?? 0);
  }

  /** Merges two runs each sorted by seq. */
  private mergeBySeq<T extends SimItem>(a: readonly T[], b: readonly T[]): T[] {
    const merged: T[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      if (this.seq(a[i] as T) <= this.seq(b[j] as T)) merged.push(a[i++] as T);
      else merged.push(b[j++] as T);
    }
    while (i < a.length) merged.push(a[i++] as T);
    while (j < b.length) merged.push(b[j++] as T);
    return merged;
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
    return this.byKey.size + this.cold.itemCount;
  }

  clear(): void {
    this.byKey.clear();
    this.byKind.clear();
    this.byReference.clear();
    this.byCreatedAt.clear();
    this.referencesOf.clear();
    this.webhooks.clear();
    this.cold.clear();
    this.numericId = 1000;
    this.nextSeq = 0;
  }
}

function referenceKey(kind: ItemKind, field: string, value: string): string {
  return `${kind}\u0000${field}\u0000${value}`;
}

/** Whether `item` sorts before (createdAt, key) in a list window's order. */
function isBefore(item: SimItem, createdAt: string, key: string): boolean {
  const own = createdAtOf(item);
  return own < createdAt || (own === createdAt && item.key < key);
}

/** The later of the last status change and `updatedAt` (a touch changes only the latter). */
function lastChangeOf(item: SimItem): string {
  const changedAt = item.history.at(-1)?.at ?? '';
  const updatedAt = (item.resource as { updatedAt?: string }).updatedAt ?? '';
  return updatedAt > changedAt ? updatedAt : changedAt;
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
