/**
 * Retention: how long the tables that grow with traffic keep their rows, and the pruning that
 * applies it (the scheduled task `retention` and `paysync prune` call the same functions). Each
 * table's statements live in its owner; this component holds the policy and the loop. Ledger
 * journals and lines are never pruned. See docs/retention.md.
 */
export { RETENTION_POLICY, type RetentionTarget } from './retention-policy.ts';
export {
  planPruning,
  pruneTables,
  type PruneOptions,
  type PruneProgress,
  type TablePruned,
  type TablePruning,
} from './prune-tables.ts';
export { pruneSummary } from './prune-summary.ts';
export { pruneUnderRun } from './prune-under-run.ts';
