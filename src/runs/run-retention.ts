import type { ExpressionBuilder } from 'kysely';
import { prunableTable, type Database, type PrunableTable } from '../db/index.ts';

/*
 * Retention of run records (docs/retention.md): finished runs started long ago go, except the
 * latest run of each task and its latest successful run, which task health, `paysync doctor`
 * and the `/metrics` gauges read however long ago they were, and the first run of a task that
 * never succeeded (task health counts its failure from there). A `running` record never goes.
 * "A newer one exists" is a seek on `scheduled_runs_task_started` per row.
 */

/** Finished runs that task health no longer needs (their age is the rule's). */
function prunableRun(eb: ExpressionBuilder<Database, 'scheduled_runs'>) {
  const otherOfTask = (when: '>' | '<' | 'any', succeededOnly: boolean) => {
    let other = eb
      .selectFrom('scheduled_runs as other')
      .select(eb.lit(1).as('one'))
      .whereRef('other.task', '=', 'scheduled_runs.task');
    if (when !== 'any')
      other = other.whereRef('other.started_at', when, 'scheduled_runs.started_at');
    if (succeededOnly) other = other.where('other.outcome', '=', 'succeeded');
    return eb.exists(other);
  };
  return eb.and([
    eb('scheduled_runs.outcome', '<>', 'running'),
    // Not the task's latest run,
    otherOfTask('>', false),
    // nor its latest success,
    eb.or([eb('scheduled_runs.outcome', '<>', 'succeeded'), otherOfTask('>', true)]),
    // nor, for a task that never succeeded, its first run: task health counts from it.
    eb.or([otherOfTask('any', true), otherOfTask('<', false)]),
  ]);
}

/**
 * The finished run records, by `started_at`: deleted. The write checks only that the run is
 * not running: records are only ever added, so a run picked as neither the latest nor the first
 * of its task is still neither.
 */
export const RUN_RECORDS_RETENTION: PrunableTable = prunableTable({
  table: 'scheduled_runs',
  timeColumn: 'scheduled_runs.started_at',
  condition: prunableRun,
  recheck: (eb) => eb('outcome', '<>', 'running'),
});

/** Run records that retention may delete before `before`. */
export const scheduledRunsPrunable = RUN_RECORDS_RETENTION.prunable;

/** Deletes at most `limit` of them, oldest first, by id. Returns the rows deleted. */
export const pruneScheduledRuns = RUN_RECORDS_RETENTION.prune;
