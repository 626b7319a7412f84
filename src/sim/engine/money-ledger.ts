import type { ColdStore } from './cold-store.ts';
import type { AccountType, Mode } from './sim-resources.ts';

export type MovementKind =
  'funding' | 'payment' | 'transfer' | 'transfer_fee' | 'transfer_refund' | 'payment_refund';

/** Money that actually moved on one of the merchant's accounts. Amounts are signed integers. */
export interface MoneyMovement {
  readonly id: string;
  /** Simulator-clock time, ISO 8601 UTC with milliseconds. */
  readonly at: string;
  readonly atMs: number;
  readonly mode: Mode;
  readonly accountType: AccountType;
  readonly currency: string;
  readonly amount: number;
  readonly kind: MovementKind;
  /** The resource that moved it (a `pi_`, `tr_` or refund id), absent for funding. */
  readonly resourceId?: string;
}

/**
 * When the start-up funding (`initialBalances`) is dated: the Unix epoch, earlier than anything
 * the simulator can hold (seeded items may be dated before it starts, never before this).
 */
export const FUNDED_AT = '1970-01-01T00:00:00.000Z';

export interface Balance {
  accountType: AccountType;
  currency: string;
  amount: number;
}

export interface BalanceQuery {
  mode: Mode;
  /** Balance as of this instant (inclusive). */
  atMs: number;
  currency?: string | undefined;
  accountTypes?: readonly AccountType[] | undefined;
}

/**
 * An append-only movement log; balances are sums over it, so any past instant can be asked.
 * Older movements move to the cold store ({@link MoneyLedger.moveOut}) with their running
 * totals kept in memory, so a balance asked for now never reads them.
 */
export class MoneyLedger {
  private readonly movements: MoneyMovement[] = [];
  private readonly accountsHeld = new Set<string>();
  private readonly totals = new Map<string, number>();
  /** Sums of the moved-out movements per `mode|accountType|currency`. */
  private readonly movedTotals = new Map<string, number>();
  /** The latest `atMs` among moved-out movements: a balance at or after it needs no query. */
  private movedUntilMs = Number.NEGATIVE_INFINITY;
  private moved = 0;

  constructor(private readonly cold: ColdStore) {}

  record(movement: MoneyMovement): MoneyMovement {
    if (!Number.isSafeInteger(movement.amount)) throw new Error('money must be a safe integer');
    this.movements.push(movement);
    const key = `${movement.mode}|${movement.accountType}|${movement.currency}`;
    this.totals.set(key, (this.totals.get(key) ?? 0) + movement.amount);
    this.hold(movement.mode, movement.accountType, movement.currency);
    return movement;
  }

  /** Declares an account the merchant holds, so it is listed with 0 before any money moves. */
  hold(mode: Mode, accountType: AccountType, currency: string): void {
    this.accountsHeld.add(`${mode}|${accountType}|${currency}`);
  }

  /** Every movement in record order (the moved-out ones read back from the cold store). */
  all(): readonly MoneyMovement[] {
    if (this.moved === 0) return this.movements;
    const cold = this.cold.movements().map((body) => JSON.parse(body) as MoneyMovement);
    return [...cold, ...this.movements];
  }

  /** Every movement now, to be read page by page with {@link MoneyLedger.readSnapshot}. */
  snapshot(): { moved: number; inMemory: readonly MoneyMovement[] } {
    return { moved: this.moved, inMemory: [...this.movements] };
  }

  *readSnapshot(
    snapshot: { moved: number; inMemory: readonly MoneyMovement[] },
    pageSize = 2_000,
  ): Generator<MoneyMovement> {
    for (let from = 1; from <= snapshot.moved; from += pageSize) {
      const to = Math.min(snapshot.moved, from + pageSize - 1);
      for (const body of this.cold.movementsBetween(from, to))
        yield JSON.parse(body) as MoneyMovement;
    }
    yield* snapshot.inMemory;
  }

  forResource(resourceId: string): MoneyMovement[] {
    return [
      ...this.cold.movementsOf(resourceId).map((body) => JSON.parse(body) as MoneyMovement),
      ...this.movements.filter((movement) => movement.resourceId === resourceId),
    ];
  }

  balances(query: BalanceQuery): Balance[] {
    const sums = new Map<string, Balance>();
    for (const key of this.accountsHeld) {
      const [mode, accountType, currency] = key.split('|') as [Mode, AccountType, string];
      if (mode !== query.mode || !this.wanted(query, accountType, currency)) continue;
      sums.set(`${accountType}|${currency}`, { accountType, currency, amount: 0 });
    }
    for (const movement of this.movements) {
      if (movement.mode !== query.mode || movement.atMs > query.atMs) continue;
      const balance = sums.get(`${movement.accountType}|${movement.currency}`);
      if (balance) balance.amount += movement.amount;
    }
    if (this.moved > 0) {
      for (const { accountType, currency, amount } of this.movedSumsAt(query.mode, query.atMs)) {
        const balance = sums.get(`${accountType}|${currency}`);
        if (balance) balance.amount += amount;
      }
    }
    return [...sums.values()].sort(
      (a, b) => a.accountType.localeCompare(b.accountType) || a.currency.localeCompare(b.currency),
    );
  }

  /** The settled amount of one account now (used to refuse transfers the account cannot pay). */
  balanceOf(mode: Mode, accountType: AccountType, currency: string): number {
    return this.totals.get(`${mode}|${accountType}|${currency}`) ?? 0;
  }

  /** Moves all but the newest `keep` movements to the cold store; returns how many moved. */
  moveOut(keep: number): number {
    const count = this.movements.length - keep;
    if (count <= 0) return 0;
    const leaving = this.movements.splice(0, count);
    this.cold.putMovements(
      leaving.map((movement, index) => ({
        n: this.moved + index + 1,
        mode: movement.mode,
        accountType: movement.accountType,
        currency: movement.currency,
        atMs: movement.atMs,
        amount: movement.amount,
        resourceId: movement.resourceId ?? null,
        body: JSON.stringify(movement),
      })),
    );
    for (const movement of leaving) {
      const key = `${movement.mode}|${movement.accountType}|${movement.currency}`;
      this.movedTotals.set(key, (this.movedTotals.get(key) ?? 0) + movement.amount);
      this.movedUntilMs = Math.max(this.movedUntilMs, movement.atMs);
    }
    this.moved += leaving.length;
    return leaving.length;
  }

  /** Movements in memory and at rest in the cold store. */
  counts(): { inMemory: number; moved: number } {
    return { inMemory: this.movements.length, moved: this.moved };
  }

  clear(): void {
    this.movements.length = 0;
    this.accountsHeld.clear();
    this.totals.clear();
    this.movedTotals.clear();
    this.movedUntilMs = Number.NEGATIVE_INFINITY;
    this.moved = 0;
  }

  private movedSumsAt(
    mode: Mode,
    atMs: number,
  ): { accountType: string; currency: string; amount: number }[] {
    if (atMs < this.movedUntilMs) return this.cold.sumsAt(mode, atMs);
    const sums: { accountType: string; currency: string; amount: number }[] = [];
    for (const [key, amount] of this.movedTotals) {
      const [movementMode, accountType, currency] = key.split('|') as [Mode, string, string];
      if (movementMode === mode) sums.push({ accountType, currency, amount });
    }
    return sums;
  }

  private wanted(query: BalanceQuery, accountType: AccountType, currency: string): boolean {
    if (query.currency !== undefined && query.currency !== currency) return false;
    return query.accountTypes === undefined || query.accountTypes.includes(accountType);
  }
}
