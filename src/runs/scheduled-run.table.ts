import type { Generated, Selectable } from 'kysely';

/** How a run ended; `running` until it does (or until the next run finds it dead). */
export type RunOutcome = 'running' | 'succeeded' | 'partial' | 'failed';

/** Whether the scheduler fired the run or a person did (`paysync sweep`, `paysync backfill`). */
export type RunTrigger = 'schedule' | 'manual';

/** One row per run of a scheduled task: what it did and how it ended. */
export interface ScheduledRunTable {
  id: Generated<number>;
  task: string;
  /** The tick the run stands for (UTC ISO 8601), or the start time of a manual run. */
  slot: string;
  /** 1, or more when an earlier run of the same slot died and this one took over. */
  attempt: number;
  trigger: RunTrigger;
  started_at: string;
  /** Refreshed while the run is alive; a `running` row with an old heartbeat is a dead run. */
  heartbeat_at: string;
  finished_at: string | null;
  outcome: RunOutcome;
  items_seen: Generated<number>;
  items_changed: Generated<number>;
  /** Items first learned from this run, not from a webhook (sweeps). */
  items_missed: Generated<number>;
  pages_read: Generated<number>;
  upstream_calls: Generated<number>;
  /** Where the run got to, in the task's own words (e.g. `intents 2030-01-10T10:05:00.000Z`). */
  checkpoint: string | null;
  /** Why the run was partial or failed. Never holds a secret. */
  error: string | null;
}

export type ScheduledRunRow = Selectable<ScheduledRunTable>;
