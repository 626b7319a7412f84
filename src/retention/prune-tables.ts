import { setTimeout as sleep } from 'node:timers/promises';
import type { RetentionSettings } from '../config/index.ts';
import type { Executor } from '../db/index.ts';
import { RETENTION_POLICY, type RetentionTarget } from './retention-policy.ts';

/** What retention would do, or did, to one table. Times are UTC ISO 8601 with milliseconds. */
export interface TablePruning {
  readonly table: string;
  readonly removes: RetentionTarget['removes'];
  readonly variable: string;
  /** The period in ms, or null when the table is kept for ever (`off`). */
  readonly periodMs: number | null;
  /** Rows older than this go; null when `off`. */
  readonly before: string | null;
  /** Rows that may go (a plan), or that went (a run). */
  readonly count: number;
  /** The span of their times (processed, consumed, started or created, per table). */
  readonly oldest: string | null;
  readonly newest: string | null;
}

/** A pruning run's result for one table: the plan, and how it went. */
export interface TablePruned extends TablePruning {
  /** Rows changed or deleted. */
  readonly pruned: number;
  readonly batches: number;
  /** The longest single statement pair (pick ids, write by id), in ms. */
  readonly longestBatchMs: number;
}

export interface PruneProgress {
  readonly table: string;
  readonly done: number;
  readonly total: number;
}

export interface PruneOptions {
  /** Called after each batch. */
  readonly onProgress?: (progress: PruneProgress) => void;
  /** Wait between batches, so writers waiting for the lock go first. @defaultValue 5 */
  readonly pauseMs?: number;
}

function cutoff(now: Date, periodMs: number | undefined): Date | undefined {
  return periodMs === undefined ? undefined : new Date(now.getTime() - periodMs);
}

/** What {@link pruneTables} would do now: per table, how many rows and their span. Changes nothing. */
export async function planPruning(
  db: Executor,
  settings: RetentionSettings,
  now: Date,
): Promise<TablePruning[]> {
  const plans: TablePruning[] = [];
  for (const target of RETENTION_POLICY) {
    const periodMs = settings.periods[target.period];
    const before = cutoff(now, periodMs);
    const rows = before
      ? await target.prunable(db, before)
      : { count: 0, oldest: null, newest: null };
    plans.push({
      table: target.table,
      removes: target.removes,
      variable: target.variable,
      periodMs: periodMs ?? null,
      before: before?.toISOString() ?? null,
      ...rows,
    });
  }
  return plans;
}

/**
 * Prunes every table of the policy, in batches of `settings.batchSize` rows: each batch picks
 * ids, then deletes (or clears) by id, each statement its own short transaction, so no write
 * lock is held for long (docs/retention.md has the measured figures). Rows that became prunable
 * while it ran wait for the next run. Ledger journals and lines are never touched.
 */
export async function pruneTables(
  db: Executor,
  settings: RetentionSettings,
  now: Date,
  options: PruneOptions = {},
): Promise<TablePruned[]> {
  const pauseMs = options.pauseMs ?? 5;
  const results: TablePruned[] = [];
  const plans = await planPruning(db, settings, now);
  for (const [index, plan] of plans.entries()) {
    const target = RETENTION_POLICY[index]!;
    let pruned = 0;
    let batches = 0;
    let longestBatchMs = 0;
    if (plan.before !== null && plan.count > 0) {
      const batch = { before: new Date(plan.before), limit: settings.batchSize, at: now };
      for (;;) {
        const started = performance.now();
        const changed = await target.prune(db, batch);
        longestBatchMs = Math.max(longestBatchMs, performance.now() - started);
        if (changed === 0) break;
        batches += 1;
        pruned += changed;
        options.onProgress?.({
          table: plan.table,
          done: Math.min(pruned, plan.count),
          total: plan.count,
        });
        // Rows that became old enough during the run are the next run's: the plan is the cap.
        if (pruned >= plan.count || changed < settings.batchSize) break;
        await sleep(pauseMs);
      }
    }
    results.push({
      ...plan,
      pruned,
      batches,
      longestBatchMs: Math.round(longestBatchMs * 10) / 10,
    });
  }
  return results;
}
