import type { MoneyLedger, MovementKind } from '../engine/money-ledger.ts';
import type { SimClock } from '../engine/sim-clock.ts';
import type { AccountType, ItemKind, ItemResources, Mode } from '../engine/sim-resources.ts';
import type { OutcomePlan, SimItem, SimStore } from '../engine/sim-store.ts';
import type { SimTimings } from '../engine/sim-timings.ts';

/** What a state machine may use from the engine. */
export interface MachineContext {
  readonly clock: SimClock;
  readonly ledger: MoneyLedger;
  readonly store: SimStore;
  readonly timings: SimTimings;
  readonly merchantId: string;
  /** The simulator's public base URL, once it listens (used in links and next actions). */
  readonly baseUrl: string;
  /** A new `<prefix>_<24 chars>` id from the seeded source. */
  nextId(prefix: string): string;
  /** Adds an item in its first status, emits `<kind>.created` and enters the status. */
  create<K extends ItemKind>(
    kind: K,
    mode: Mode,
    resource: ItemResources[K],
    plan: OutcomePlan,
    references?: Record<string, string>,
  ): SimItem<K>;
  /** Moves an item to `to`, or throws a conflict if its machine does not allow it. */
  transition(item: SimItem, to: string): void;
  /** Moves an item along the shortest allowed path to `to`. */
  settle(item: SimItem, to: string): void;
  /** After `afterMs` on the simulator clock, runs `work` if the item is still in `whileStatus`. */
  schedule(item: SimItem, afterMs: number, whileStatus: string, work: () => void): void;
  /** Records money that moved on one of the merchant's accounts. */
  move(
    mode: Mode,
    accountType: AccountType,
    currency: string,
    amount: number,
    kind: MovementKind,
    resourceId?: string,
  ): void;
  /** Emits `<kind>.updated` for a change that is not a status change. */
  touched(item: SimItem): void;
}

/** A resource's state machine: allowed transitions and what entering a status does. */
export interface Machine<K extends ItemKind> {
  readonly kind: K;
  /** For each status, the statuses it may move to. Terminal statuses map to []. */
  readonly transitions: Readonly<Record<string, readonly string[]>>;
  /** Sets the fields the new status needs, before the change is recorded and emitted. */
  prepare?(context: MachineContext, item: SimItem<K>, to: string): void;
  /** Runs after the change is emitted: schedules what follows, moves money. */
  enter?(context: MachineContext, item: SimItem<K>, status: string): void;
  /** Handles a control-surface settle itself (returns true) instead of walking transitions. */
  settle?(context: MachineContext, item: SimItem<K>, to: string): boolean;
}

/** Every item has a `status`; this reads it whatever the kind. */
export function statusOf(item: SimItem): string {
  return item.resource.status;
}
