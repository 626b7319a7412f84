import type { RetentionSettings } from '../config/index.ts';
import type { Executor } from '../db/index.ts';
import type { RunHandle } from '../runs/index.ts';
import { pruneSummary } from './prune-summary.ts';
import { pruneTables, type PruneOptions, type TablePruned } from './prune-tables.ts';

/**
 * {@link pruneTables} inside a run record (the scheduled task and `paysync prune` alike): seen
 * is what the plan found, changed is what went, the checkpoint names each table's count.
 */
export async function pruneUnderRun(
  run: RunHandle,
  db: Executor,
  settings: RetentionSettings,
  now: Date,
  options: PruneOptions = {},
): Promise<TablePruned[]> {
  const results = await pruneTables(db, settings, now, options);
  run.count({
    itemsSeen: results.reduce((sum, r) => sum + r.count, 0),
    itemsChanged: results.reduce((sum, r) => sum + r.pruned, 0),
  });
  run.checkpoint(pruneSummary(results));
  return results;
}
