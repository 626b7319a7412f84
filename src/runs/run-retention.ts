import type { ExpressionBuilder } from 'kysely';
import {
  prunableRows,
  type Database,
  type Executor,
  type PrunableRows,
  type PrunableTable,
  type PruneBatch,
} from '../db/index.ts';

/*
 * Retention of run records (docs/retention.md): finished runs started long ago go, except the
 * latest run of each task and its latest successful run, which task health, `paysync doctor`
 * and the `/metrics` gauges read however long ago they were, and the first run of a task that
 * never succeeded (task health counts its failure from there). A `running` record never goes.
 * "A newer one exists" is a seek on `scheduled_runs_task_started` per row.
 */
function prunable(before: Date) {
  return (eb: ExpressionBuilder<Database, 'scheduled_runs'>) => {
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
      eb('scheduled_runs.started_at', '<', before.toISOString()),
      eb('scheduled_runs.outcome', '<>', 'running'),
      // Not the task's latest run,
      otherOfTask('>', false),
      // nor its latest success,
      eb.or([eb('scheduled_runs.outcome', '<>', 'succeeded'), otherOfTask('>', true)]),
      // nor, for a task that never succeeded, its first run: task health counts from it.
      eb.or([otherOfTask('any', true), otherOfTask('<', false)]),
    ]);
  };
}

/** Run records that retention may delete before `before`. */
export async function scheduledRunsPrunable(db: Executor, before: Date): Promise<PrunableRows> {
  const row = await db
    .selectFrom('scheduled_runs')
    .select((eb) => [
      eb.fn.countAll<number>().as('count'),
      eb.fn.min<string | null>('scheduled_runs.started_at').as('oldest'),
      eb.fn.max<string | null>('scheduled_runs.started_at').as('newest'),
    ])
    .where(prunable(before))
    .executeTakeFirst();
  return prunableRows(row);
}

/** Deletes at most `limit` of them, oldest first, by id. Returns the rows deleted. */
export async function pruneScheduledRuns(db: Executor, batch: PruneBatch): Promise<number> {
  const picked = await db
    .selectFrom('scheduled_runs')
    .select('scheduled_runs.id')
    .where(prunable(batch.before))
    .orderBy('scheduled_runs.started_at')
    .limit(batch.limit)
    .execute();
  if (picked.length === 0) return 0;
  const result = await db
    .deleteFrom('scheduled_runs')
    .where(
      'id',
      'in',
      picked.map((row) => row.id),
    )
    .where('outcome', '<>', 'running')
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The finished run records, for src/retention. */
export const RUN_RECORDS_RETENTION: PrunableTable = {
  table: 'scheduled_runs',
  prunable: scheduledRunsPrunable,
  prune: pruneScheduledRuns,
};
