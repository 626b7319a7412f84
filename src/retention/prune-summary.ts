import type { TablePruned } from './prune-tables.ts';

/** One line for the run record and the logs: each table with its count, e.g. `outbox 40, …` (skipping `off`). */
export function pruneSummary(results: readonly TablePruned[]): string {
  const parts = results.map((r) =>
    r.periodMs === null ? `${r.table} off` : `${r.table} ${r.pruned}`,
  );
  const longest = Math.max(0, ...results.map((r) => r.longestBatchMs));
  return `pruned ${parts.join(', ')}; longest batch ${longest} ms`;
}
