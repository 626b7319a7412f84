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

/**
 * Every task that has a run, without reading every run: a walk of `scheduled_runs_task_started`
 * from one task to the next (a loose index scan), one probe per task.
 */
async function tasksWithRuns(db: Executor): Promise<string[]> {
  const { rows } = await sql<{ task: string | null }>`
    with recursive tasks(task) as (
      select min(task) from scheduled_runs
      union all
      select (select min(s.task) from scheduled_runs s where s.task > tasks.task)
      from tasks where tasks.task is not null
    )
    select task from tasks where task is not null`.execute(db);
  return rows.map((row) => row.task!);
}

/** The newest run of a task (by start), among those with `outcome` when given. */
async function newestRun(
  db: Executor,
  task: string,
  outcome?: RunOutcome,
): Promise<Pick<ScheduledRunRow, 'started_at' | 'finished_at' | 'outcome'> | undefined> {
  let query = db
    .selectFrom('scheduled_runs')
    .select(['started_at', 'finished_at', 'outcome'])
    .where('task', '=', task);
  if (outcome) query = query.where('outcome', '=', outcome);
  return query.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/**
 * When each task's newest successful run ended. A few index probes per task (migration 0020),
 * whatever the number of runs recorded: the metrics read it on every scrape.
 */
export async function lastSuccessByTask(
  db: Executor,
): Promise<{ readonly task: string; readonly finishedAt: string }[]> {
  const found: { task: string; finishedAt: string }[] = [];
  for (const task of await tasksWithRuns(db)) {
    const run = await newestRun(db, task, 'succeeded');
    if (run?.finished_at) found.push({ task, finishedAt: String(run.finished_at) });
  }
  return found;
}

/** Per task: when it last succeeded and when it last ran at all. */
export interface TaskRunSummary {
  readonly task: string;
  readonly lastSucceededAt: string | null;
  readonly lastStartedAt: string;
  readonly firstStartedAt: string;
  readonly lastOutcome: RunOutcome;
}

/** Index probes per task, as {@link lastSuccessByTask}. */
export async function taskRunSummaries(db: Executor): Promise<TaskRunSummary[]> {
  const summaries: TaskRunSummary[] = [];
  for (const task of await tasksWithRuns(db)) {
    const last = await newestRun(db, task);
    if (!last) continue;
    const succeeded = await newestRun(db, task, 'succeeded');
    const first = await db
      .selectFrom('scheduled_runs')
      .select('started_at')
      .where('task', '=', task)
      .orderBy('started_at', 'asc')
      .limit(1)
      .executeTakeFirstOrThrow();
    summaries.push({
      task,
      lastSucceededAt: succeeded ? String(succeeded.started_at) : null,
      lastStartedAt: String(last.started_at),
      firstStartedAt: String(first.started_at),
      lastOutcome: last.outcome,
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
