import { sql } from 'kysely';
import type { Executor } from '../ledger/index.ts';
import type { RunOutcome, RunTrigger, ScheduledRunRow } from './scheduled-run.table.ts';

/** Counts a run keeps; every field adds up over the run. */
export interface RunCounts {
  readonly itemsSeen: number;
  readonly itemsChanged: number;
  readonly itemsMissed: number;
  readonly pagesRead: number;
  readonly upstreamCalls: number;
}

export const NO_COUNTS: RunCounts = Object.freeze({
  itemsSeen: 0,
  itemsChanged: 0,
  itemsMissed: 0,
  pagesRead: 0,
  upstreamCalls: 0,
});

/** One run as `paysync runs`, `doctor` and tests read it. */
export interface ScheduledRun extends RunCounts {
  readonly id: number;
  readonly task: string;
  readonly slot: string;
  readonly attempt: number;
  readonly trigger: RunTrigger;
  readonly startedAt: string;
  readonly heartbeatAt: string;
  readonly finishedAt: string | null;
  readonly outcome: RunOutcome;
  readonly checkpoint: string | null;
  readonly error: string | null;
}

function toRun(row: ScheduledRunRow): ScheduledRun {
  return {
    id: row.id,
    task: row.task,
    slot: row.slot,
    attempt: row.attempt,
    trigger: row.trigger,
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
    finishedAt: row.finished_at,
    outcome: row.outcome,
    itemsSeen: row.items_seen,
    itemsChanged: row.items_changed,
    itemsMissed: row.items_missed,
    pagesRead: row.pages_read,
    upstreamCalls: row.upstream_calls,
    checkpoint: row.checkpoint,
    error: row.error,
  };
}

function countColumns(counts: RunCounts) {
  return {
    items_seen: counts.itemsSeen,
    items_changed: counts.itemsChanged,
    items_missed: counts.itemsMissed,
    pages_read: counts.pagesRead,
    upstream_calls: counts.upstreamCalls,
  };
}

/**
 * Marks `running` rows of `task` whose heartbeat stopped before `staleBefore` as `failed`:
 * their worker died mid-run. Returns how many.
 */
export async function failDeadRuns(
  db: Executor,
  task: string,
  staleBefore: string,
  at: string,
): Promise<number> {
  const result = await db
    .updateTable('scheduled_runs')
    .set({
      outcome: 'failed',
      finished_at: at,
      error: sql<string>`${'the run stopped without finishing (its worker died?); last heartbeat '} || ${sql.ref('heartbeat_at')}`,
    })
    .where('task', '=', task)
    .where('outcome', '=', 'running')
    .where('heartbeat_at', '<', staleBefore)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Runs already on file for one slot of a task. */
export async function runsOfSlot(
  db: Executor,
  task: string,
  slot: string,
): Promise<ScheduledRun[]> {
  const rows = await db
    .selectFrom('scheduled_runs')
    .selectAll()
    .where('task', '=', task)
    .where('slot', '=', slot)
    .orderBy('attempt')
    .execute();
  return rows.map(toRun);
}

/**
 * Starts a run record. Returns undefined when another process took the same attempt of the
 * slot first (the unique key refused this one).
 */
export async function insertRun(
  db: Executor,
  run: {
    task: string;
    slot: string;
    attempt: number;
    trigger: RunTrigger;
    startedAt: string;
  },
): Promise<number | undefined> {
  const inserted = await db
    .insertInto('scheduled_runs')
    .values({
      task: run.task,
      slot: run.slot,
      attempt: run.attempt,
      trigger: run.trigger,
      started_at: run.startedAt,
      heartbeat_at: run.startedAt,
      outcome: 'running',
    })
    .onConflict((oc) => oc.columns(['task', 'slot', 'attempt']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}

/** Refreshes a live run's heartbeat, counts and checkpoint. */
export async function touchRun(
  db: Executor,
  id: number,
  progress: { at: string; counts: RunCounts; checkpoint: string | null },
): Promise<void> {
  await db
    .updateTable('scheduled_runs')
    .set({
      heartbeat_at: progress.at,
      checkpoint: progress.checkpoint,
      ...countColumns(progress.counts),
    })
    .where('id', '=', id)
    .where('outcome', '=', 'running')
    .execute();
}

/** Closes a run with its outcome. */
export async function finishRun(
  db: Executor,
  id: number,
  end: {
    at: string;
    outcome: Exclude<RunOutcome, 'running'>;
    counts: RunCounts;
    checkpoint: string | null;
    error: string | null;
  },
): Promise<void> {
  await db
    .updateTable('scheduled_runs')
    .set({
      heartbeat_at: end.at,
      finished_at: end.at,
      outcome: end.outcome,
      checkpoint: end.checkpoint,
      error: end.error,
      ...countColumns(end.counts),
    })
    .where('id', '=', id)
    .execute();
}

export interface RecentRunsQuery {
  /** Only this task. */
  readonly task?: string;
  /** @defaultValue 20 */
  readonly limit?: number;
}

/** Recent runs, newest first. */
export async function recentRuns(
  db: Executor,
  query: RecentRunsQuery = {},
): Promise<ScheduledRun[]> {
  let select = db.selectFrom('scheduled_runs').selectAll();
  if (query.task !== undefined) select = select.where('task', '=', query.task);
  const rows = await select
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit ?? 20)
    .execute();
  return rows.map(toRun);
}

/** Per task: when its latest successful run finished (the `/metrics` gauge of each task). */
export async function lastSuccessByTask(
  db: Executor,
): Promise<{ readonly task: string; readonly finishedAt: string }[]> {
  const rows = await db
    .selectFrom('scheduled_runs')
    .select(['task', (eb) => eb.fn.max('finished_at').as('at')])
    .where('outcome', '=', 'succeeded')
    .groupBy('task')
    .execute();
  return rows
    .filter((row) => row.at !== null)
    .map((row) => ({ task: row.task, finishedAt: String(row.at) }));
}

/** Per task: when it last succeeded and when it last ran at all. */
export interface TaskRunSummary {
  readonly task: string;
  readonly lastSucceededAt: string | null;
  readonly lastStartedAt: string;
  readonly firstStartedAt: string;
  readonly lastOutcome: RunOutcome;
}

export async function taskRunSummaries(db: Executor): Promise<TaskRunSummary[]> {
  const succeeded = await db
    .selectFrom('scheduled_runs')
    .select(['task', (eb) => eb.fn.max('started_at').as('at')])
    .where('outcome', '=', 'succeeded')
    .groupBy('task')
    .execute();
  const latest = await db
    .selectFrom('scheduled_runs')
    .select([
      'task',
      (eb) => eb.fn.max('started_at').as('at'),
      (eb) => eb.fn.min('started_at').as('first'),
    ])
    .groupBy('task')
    .execute();
  const lastSucceeded = new Map(succeeded.map((row) => [row.task, String(row.at)]));
  const summaries: TaskRunSummary[] = [];
  for (const row of latest) {
    const last = await db
      .selectFrom('scheduled_runs')
      .select('outcome')
      .where('task', '=', row.task)
      .where('started_at', '=', String(row.at))
      .orderBy('id', 'desc')
      .executeTakeFirst();
    summaries.push({
      task: row.task,
      lastSucceededAt: lastSucceeded.get(row.task) ?? null,
      lastStartedAt: String(row.at),
      firstStartedAt: String(row.first),
      lastOutcome: last?.outcome ?? 'running',
    });
  }
  return summaries;
}

/** Items sweeps found that no webhook named, over runs started since `since`. */
export async function missedWebhooksSince(db: Executor, since: string): Promise<number> {
  const row = await db
    .selectFrom('scheduled_runs')
    .select((eb) => eb.fn.sum<number>('items_missed').as('missed'))
    .where('started_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.missed ?? 0);
}
