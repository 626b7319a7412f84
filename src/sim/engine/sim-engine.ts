import { MACHINES, pathBetween, statusOf } from '../machines/index.ts';
import type { Machine, MachineContext } from '../machines/index.ts';
import { ColdStore } from './cold-store.ts';
import { MoneyLedger, type MovementKind } from './money-ledger.ts';
import { SeededRandom } from './seeded-random.ts';
import { SimClock } from './sim-clock.ts';
import { SimError } from './sim-error.ts';
import type { AccountType, ItemKind, ItemResources, Mode } from './sim-resources.ts';
import { SimStore, type OutcomePlan, type SimItem } from './sim-store.ts';
import type { SimTimings } from './sim-timings.ts';
import { TimerQueue } from './timer-queue.ts';

/** A state change worth a webhook: `<kind>.created` or `<kind>.updated`. */
export interface ItemChange {
  readonly type: string;
  readonly item: SimItem;
  readonly previousStatus: string | undefined;
  /** Simulator-clock time of the change. */
  readonly at: string;
}

export interface SimEngineSettings {
  merchantId: string;
  seed: number;
  timings: SimTimings;
  startAt?: Date | undefined;
  freezeClock?: boolean | undefined;
  /** The cold store's SQLite file; a temporary file (deleted on close) when undefined. */
  coldStorePath?: string | undefined;
  /**
   * Settled items unchanged for this long (simulator clock) move out of memory to the cold
   * store, and answer from there. `Infinity` keeps everything in memory.
   */
  settledInMemoryMs: number;
  /** Money movements kept in memory by {@link SimEngine.moveOut}; older ones rest in the cold store. */
  movementsInMemory: number;
  /** Told about a scheduled transition that threw; the others still run. */
  onJobError?: ((error: unknown) => void) | undefined;
}

/**
 * The simulator's state and time: items, money, scheduled transitions. It knows nothing of
 * HTTP; the API handlers and the control surface both drive it.
 */
export class SimEngine implements MachineContext {
  readonly clock: SimClock;
  readonly cold: ColdStore;
  readonly ledger: MoneyLedger;
  readonly store: SimStore;
  readonly timers = new TimerQueue();
  readonly timings: SimTimings;
  readonly merchantId: string;
  random: SeededRandom;
  baseUrl = '';
  private readonly changeListeners: ((change: ItemChange) => void)[] = [];
  private movementCount = 0;

  constructor(private readonly settings: SimEngineSettings) {
    this.cold = new ColdStore(settings.coldStorePath);
    this.ledger = new MoneyLedger(this.cold);
    this.store = new SimStore(this.cold);
    this.clock = new SimClock({ startAt: settings.startAt, frozen: settings.freezeClock });
    this.timings = settings.timings;
    this.merchantId = settings.merchantId;
    this.random = new SeededRandom(settings.seed);
  }

  /** Called synchronously for every creation and status change, in order. */
  onChange(listener: (change: ItemChange) => void): void {
    this.changeListeners.push(listener);
  }

  nextId(prefix: string): string {
    return `${prefix}_${this.random.token(24)}`;
  }

  create<K extends ItemKind>(
    kind: K,
    mode: Mode,
    resource: ItemResources[K],
    plan: OutcomePlan,
    references: Record<string, string> = {},
  ): SimItem<K> {
    const at = this.clock.iso();
    const item: SimItem<K> = {
      kind,
      key: String(resource.id),
      mode,
      resource,
      history: [{ status: resource.status, at }],
      plan,
    };
    this.store.add(item, references);
    this.emit({ type: `${kind}.created`, item, previousStatus: undefined, at });
    this.machineOf(item).enter?.(this, item, resource.status);
    return item;
  }

  transition(item: SimItem, to: string): void {
    const from = statusOf(item);
    if (from === to) return;
    const machine = this.machineOf(item);
    if (!(machine.transitions[from] ?? []).includes(to)) {
      throw SimError.conflict(`${item.kind} ${item.key} cannot move from ${from} to ${to}`);
    }
    const at = this.clock.iso();
    machine.prepare?.(this, item, to);
    const resource = item.resource as { status: string; updatedAt?: string };
    resource.status = to;
    if ('updatedAt' in resource) resource.updatedAt = at;
    item.history.push({ status: to, at });
    this.emit({ type: `${item.kind}.updated`, item, previousStatus: from, at });
    machine.enter?.(this, item, to);
  }

  settle(item: SimItem, to: string): void {
    const machine = this.machineOf(item);
    if (machine.settle?.(this, item, to)) return;
    const path = pathBetween(machine, statusOf(item), to);
    if (path === undefined) {
      throw SimError.conflict(`${item.kind} ${item.key} cannot reach ${to} from ${statusOf(item)}`);
    }
    for (const status of path) this.transition(item, status);
  }

  schedule(item: SimItem, afterMs: number, whileStatus: string, work: () => void): void {
    this.timers.schedule(this.clock.nowMs() + afterMs, () => {
      if (statusOf(item) === whileStatus) work();
    });
  }

  move(
    mode: Mode,
    accountType: AccountType,
    currency: string,
    amount: number,
    kind: MovementKind,
    resourceId?: string,
  ): void {
    this.movementCount += 1;
    const atMs = this.clock.nowMs();
    this.ledger.record({
      id: `mv_${this.movementCount}`,
      at: new Date(atMs).toISOString(),
      atMs,
      mode,
      accountType,
      currency,
      amount,
      kind,
      ...(resourceId === undefined ? {} : { resourceId }),
    });
  }

  touched(item: SimItem): void {
    const at = this.clock.iso();
    const resource = item.resource as { updatedAt?: string };
    if ('updatedAt' in resource) resource.updatedAt = at;
    this.emit({ type: `${item.kind}.updated`, item, previousStatus: statusOf(item), at });
  }

  /** Runs every scheduled transition that is due, each with the clock at its due time. */
  runDue(): number {
    let ran = 0;
    for (
      let job = this.timers.popDue(this.clock.nowMs());
      job;
      job = this.timers.popDue(this.clock.nowMs())
    ) {
      const { run, dueAtMs } = job;
      try {
        this.clock.pinned(dueAtMs, run);
      } catch (error) {
        this.settings.onJobError?.(error);
      }
      ran += 1;
    }
    return ran;
  }

  /** Moves the clock forward and runs what fell due, in due order. */
  advance(ms: number): number {
    this.clock.advance(ms);
    return this.runDue();
  }

  /**
   * Moves out of memory the settled items unchanged for `settledInMemoryMs` and all but the
   * newest `movementsInMemory` money movements. Called between requests (never inside
   * one: a caller holding an item must keep it live).
   */
  moveOut(): { items: number; movements: number } {
    if (!Number.isFinite(this.settings.settledInMemoryMs)) return { items: 0, movements: 0 };
    const cutoff = new Date(this.clock.nowMs() - this.settings.settledInMemoryMs).toISOString();
    const items = this.store.moveOut(cutoff, (item) => {
      const status = statusOf(item);
      return (
        status === item.plan.final || (this.machineOf(item).transitions[status] ?? []).length === 0
      );
    });
    return { items, movements: this.ledger.moveOut(this.settings.movementsInMemory) };
  }

  /** Closes the cold store (and deletes it when temporary). */
  close(): void {
    this.cold.close();
  }

  /** Forgets every item, movement, webhook and scheduled transition; restarts the id sequence. */
  reset(): void {
    this.store.clear();
    this.ledger.clear();
    this.timers.clear();
    this.movementCount = 0;
    this.random = new SeededRandom(this.settings.seed);
  }

  private emit(change: ItemChange): void {
    for (const listener of this.changeListeners) listener(change);
  }

  private machineOf(item: SimItem): Machine<ItemKind> {
    return MACHINES[item.kind] as Machine<ItemKind>;
  }
}
