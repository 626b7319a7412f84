import { resolveLedgerComparison, type BalanceDependencies } from './balance-options.ts';
import { latestSnapshots } from './balance-snapshot.repository.ts';
import type { AccountComparison } from './explain-drift.ts';
import { compareWithLedger, unansweredAccounts, type UnansweredAccount } from './take-snapshot.ts';

/** An account the newest stored answer does not list, with that answer's instant. */
export interface CachedUnansweredAccount extends UnansweredAccount {
  readonly asOf: string;
}

/** The stored balances against the ledger, as `balances --cached` and the ops API show them. */
export interface CachedComparison {
  /** The newest stored answer's instant. */
  readonly asOf: string;
  /** Each account's newest snapshot against the ledger at that snapshot's own instant (its `asOf`). */
  readonly comparisons: readonly AccountComparison[];
  /**
   * The accounts the ledger holds (non-zero) that the newest answer does not list, at its instant:
   * their service balance then is unknown, never 0 (docs/balances.md).
   */
  readonly unanswered: readonly CachedUnansweredAccount[];
}

/**
 * The one read of the cached balances, for every surface (`paysync balances --cached`, the ops
 * API and the dashboard's Balances page): no call to the service, nothing written. Answers need
 * not list the same accounts, so each account's newest snapshot is compared at its own instant:
 * an account the newest answer omits still shows its last known balance, with its older `asOf`,
 * and is also named as unanswered by the newest answer. `undefined` before the first snapshot.
 */
export async function cachedComparison(
  deps: Omit<BalanceDependencies, 'upstream' | 'now' | 'fetch'>,
): Promise<CachedComparison | undefined> {
  const snapshots = await latestSnapshots(deps.db, deps.environment);
  const instants = [...new Set(snapshots.map((s) => s.asOf))].sort();
  const newest = instants.at(-1);
  if (newest === undefined) return undefined;
  const ledger = resolveLedgerComparison(deps);
  const compared: AccountComparison[] = [];
  for (const asOf of instants) {
    const at = snapshots.filter((s) => s.asOf === asOf);
    compared.push(...(await compareWithLedger(ledger, at, asOf)));
  }
  const unanswered = await unansweredAccounts(
    deps,
    snapshots.filter((s) => s.asOf === newest),
    newest,
  );
  return {
    asOf: newest,
    comparisons: compared.sort(
      (a, b) => a.accountType.localeCompare(b.accountType) || a.currency.localeCompare(b.currency),
    ),
    unanswered: unanswered.map((u) => ({ ...u, asOf: newest })),
  };
}
