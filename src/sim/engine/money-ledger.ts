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

/** An append-only movement log; balances are sums over it, so any past instant can be asked. */
export class MoneyLedger {
  private readonly movements: MoneyMovement[] = [];
  private readonly accountsHeld = new Set<string>();
  private readonly totals = new Map<string, number>();

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

  all(): readonly MoneyMovement[] {
    return this.movements;
  }

  forResource(resourceId: string): MoneyMovement[] {
    return this.movements.filter((movement) => movement.resourceId === resourceId);
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
    return [...sums.values()].sort(
      (a, b) => a.accountType.localeCompare(b.accountType) || a.currency.localeCompare(b.currency),
    );
  }

  /** The settled amount of one account now (used to refuse transfers the account cannot pay). */
  balanceOf(mode: Mode, accountType: AccountType, currency: string): number {
    return this.totals.get(`${mode}|${accountType}|${currency}`) ?? 0;
  }

  clear(): void {
    this.movements.length = 0;
    this.accountsHeld.clear();
    this.totals.clear();
  }

  private wanted(query: BalanceQuery, accountType: AccountType, currency: string): boolean {
    if (query.currency !== undefined && query.currency !== currency) return false;
    return query.accountTypes === undefined || query.accountTypes.includes(accountType);
  }
}
