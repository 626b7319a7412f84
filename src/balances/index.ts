/**
 * Balances: snapshots of the service's accounts, opening balances, drift against the ledger
 * with an explanation, and low-balance crossings. Fetches through the upstream client and hands
 * what it read to the ledger; the ledger itself never calls the service.
 */
export type { BalanceSnapshotTable, SnapshotKind } from './balance-snapshot.table.ts';
export type { LowBalanceStateTable } from './low-balance-state.table.ts';
export {
  resolveBalanceDependencies,
  resolveLedgerComparison,
  type BalanceDependencies,
  type LedgerComparison,
  type ResolvedBalanceDependencies,
} from './balance-options.ts';
export {
  latestSnapshots,
  snapshotHistory,
  snapshotsAt,
  snapshotsAtEach,
  type SnapshotBalance,
} from './balance-snapshot.repository.ts';
export {
  balanceAccountKey,
  bookOpenings,
  compareWithLedger,
  openBalancesAgain,
  takeBalanceSnapshot,
  unansweredAccounts,
  type SnapshotOutcome,
  type SnapshotRequest,
  type UnansweredAccount,
} from './take-snapshot.ts';
export type { AccountComparison, AccountVerdict, DriftCandidate } from './explain-drift.ts';
export type { LowBalanceCrossing } from './low-balance.ts';
export {
  readBalanceResponse,
  SERVICE_ACCOUNT_TYPES,
  type BalanceReading,
} from './read-balance-response.ts';
export {
  cachedComparison,
  type CachedComparison,
  type CachedUnansweredAccount,
} from './cached-comparison.ts';
export {
  fillEndOfDaySnapshots,
  MAX_END_OF_DAY_FILLS,
  runBalanceTask,
  type BalanceTaskResult,
} from './balance-task.ts';
