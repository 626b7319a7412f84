import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/index.ts';
import { reasonOf } from '../error-reason.ts';
import {
  failDeadRuns,
  finishRun,
  insertRun,
  NO_COUNTS,
  runsOfSlot,
  touchRun,
  type RunCounts,
} from './scheduled-run.repository.ts';
import type { RunOutcome, RunTrigger } from './scheduled-run.table.ts';

/** What {@link recordScheduledRun} needs. */
export interface RunRecordDependencies {
  readonly db: Kysely<Database>;
  readonly logger: Logger;
  /**
   * A `running` record whose heartbeat is older than this belongs to a dead worker; the next
   * run of the task marks it `failed`. @defaultValue 120000
   */
  readonly staleRunAfterMs?: number;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
}

export const DEFAULT_STALE_RUN_AFTER_MS = 120_000;

/** Which run: the task, and the slot (tick) it stands for. */
export interface RunIdentity {
  readonly task: string;
  readonly slot: string;
  /** @defaultValue `schedule` */
  readonly trigger?: RunTrigger;
}

/** Handed to the work: count what it did and say where it got to. */
export interface RunHandle {
  /** Adds to the run's counts. */
  count(counts: Partial<RunCounts>): void;
  /** Where the work got to, in words `paysync runs` shows. */
  checkpoint(position: string): void;
  /**
   * The run was cut short (429s, timeouts) after doing some of its work: it ends `partial`,
   * never `succeeded`, with this reason (several calls keep every reason).
   */
  cutShort(reason: string): void;
  /** The counts so far. */
  readonly counts: RunCounts;
}

export interface RecordedRun<T> {
  /** `skipped`: the slot was already run (or is running) elsewhere. */
  readonly outcome: Exclude<RunOutcome, 'running'> | 'skipped';
  readonly runId?: number;
  readonly counts: RunCounts;
  readonly error?: string;
  /** What the work returned, when it returned. */
  readonly value?: T;
  /** Dead runs of the task this run found and marked `failed`. */
  readonly deadRunsFailed: number;
}

/**
 * Runs one slot of a scheduled task under a record in `scheduled_runs`, so every run leaves
 * an honest trace: `succeeded` only when the work finished, `partial` when it said it was cut
 * short, `failed` when it threw. Before starting, runs of the task whose worker died (no
 * heartbeat for `staleRunAfterMs`) are marked `failed`. A slot already on file (another
 * scheduler's tick, a duplicate job) is skipped, so each slot runs once. Errors of the work
 * are recorded, not thrown: the next slot is the retry.
 */
export async function recordScheduledRun<T>(
  deps: RunRecordDependencies,
  identity: RunIdentity,
  work: (run: RunHandle) => Promise<T>,
): Promise<RecordedRun<T>> {
  const now = deps.now;
  const staleMs = deps.staleRunAfterMs ?? DEFAULT_STALE_RUN_AFTER_MS;
  const { task, slot } = identity;
  const startedAt = now().toISOString();
  const deadRunsFailed = await failDeadRuns(
    deps.db,
    task,
    new Date(now().getTime() - staleMs).toISOString(),
    startedAt,
  );
  if (deadRunsFailed > 0) {
    deps.logger.warn({ task, runs: deadRunsFailed }, 'marked runs whose worker died as failed');
  }
  const earlier = await runsOfSlot(deps.db, task, slot);
  // A dead earlier attempt was just marked failed; only a crash hands its slot to a new attempt.
  const crashedBefore = earlier.length > 0 && earlier.every((run) => isCrash(run.error));
  if (earlier.length > 0 && !crashedBefore) {
    deps.logger.info({ task, slot }, 'slot already run; skipped');
    return { outcome: 'skipped', counts: NO_COUNTS, deadRunsFailed };
  }
  const runId = await insertRun(deps.db, {
    task,
    slot,
    attempt: earlier.length + 1,
    trigger: identity.trigger ?? 'schedule',
    startedAt,
  });
  if (runId === undefined) {
    deps.logger.info({ task, slot }, 'slot taken by another process; skipped');
    return { outcome: 'skipped', counts: NO_COUNTS, deadRunsFailed };
  }

  const counts: { -readonly [K in keyof RunCounts]: number } = { ...NO_COUNTS };
  let checkpoint: string | null = null;
  let shortReason: string | undefined;
  const handle: RunHandle = {
    count(more) {
      for (const key of Object.keys(more) as (keyof RunCounts)[]) counts[key] += more[key] ?? 0;
    },
    checkpoint(position) {
      checkpoint = position;
    },
    cutShort(reason) {
      shortReason = shortReason === undefined ? reason : `${shortReason}; ${reason}`;
    },
    get counts() {
      return { ...counts };
    },
  };
  let beating = Promise.resolve();
  const heartbeat = setInterval(
    () => {
      beating = touchRun(deps.db, runId, {
        at: now().toISOString(),
        counts: { ...counts },
        checkpoint,
      }).catch((error: unknown) =>
        deps.logger.warn({ task, reason: reasonOf(error) }, 'could not refresh the run heartbeat'),
      );
    },
    Math.max(250, Math.floor(staleMs / 4)),
  );
  heartbeat.unref();

  let outcome: Exclude<RunOutcome, 'running'>;
  let error: string | null = null;
  let value: T | undefined;
  try {
    value = await work(handle);
    outcome = shortReason === undefined ? 'succeeded' : 'partial';
    error = shortReason ?? null;
  } catch (thrown) {
    outcome = 'failed';
    error = reasonOf(thrown);
  } finally {
    clearInterval(heartbeat);
    await beating;
  }
  await finishRun(deps.db, runId, {
    at: now().toISOString(),
    outcome,
    counts: { ...counts },
    checkpoint,
    error,
  });
  const line = { task, slot, outcome, ...counts, ...(error ? { reason: error } : {}) };
  if (outcome === 'succeeded') deps.logger.info(line, 'scheduled run finished');
  else deps.logger.warn(line, 'scheduled run did not finish its work');
  return {
    outcome,
    runId,
    counts: { ...counts },
    ...(error ? { error } : {}),
    ...(value !== undefined ? { value } : {}),
    deadRunsFailed,
  };
}

function isCrash(error: string | null): boolean {
  return error?.startsWith('the run stopped without finishing') ?? false;
}
