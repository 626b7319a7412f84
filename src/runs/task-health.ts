import { CronExpressionParser } from 'cron-parser';
import type { Executor } from '../ledger/index.ts';
import { taskRunSummaries } from './scheduled-run.repository.ts';

/** A scheduled task as the cron table declares it. */
export interface ScheduledTaskSpec {
  readonly task: string;
  /** A cron expression, or `off`. */
  readonly cron: string;
}

export interface TaskHealth {
  readonly task: string;
  readonly ok: boolean;
  /** False while the task has no run on file: nothing has run, so nothing is late either. */
  readonly hasRun: boolean;
  /** One line for `doctor`. */
  readonly detail: string;
}

/** The longest gap between two ticks over the next few, in milliseconds. */
export function cronIntervalMs(cron: string, from: Date): number {
  const expression = CronExpressionParser.parse(cron, { currentDate: from, tz: 'UTC' });
  let previous = expression.next().getTime();
  let longest = 0;
  for (let i = 0; i < 8; i += 1) {
    const next = expression.next().getTime();
    longest = Math.max(longest, next - previous);
    previous = next;
  }
  return longest;
}

/** How many intervals without a success make a task unhealthy. */
export const MISSED_INTERVALS_ALLOWED = 3;

/**
 * For each enabled task: healthy unless it has not succeeded for longer than three of its
 * intervals (counted from its last success, or from its first run when it never succeeded).
 * A task with no run on file yet is healthy: the scheduler may just have started.
 */
export async function taskHealth(
  db: Executor,
  tasks: readonly ScheduledTaskSpec[],
  now: Date,
): Promise<TaskHealth[]> {
  const summaries = new Map((await taskRunSummaries(db)).map((s) => [s.task, s]));
  const results: TaskHealth[] = [];
  for (const spec of tasks) {
    if (spec.cron === 'off') continue;
    const summary = summaries.get(spec.task);
    if (!summary) {
      results.push({
        task: spec.task,
        ok: true,
        hasRun: false,
        detail: `${spec.task}: no run on file yet`,
      });
      continue;
    }
    const interval = cronIntervalMs(spec.cron, now);
    const since = summary.lastSucceededAt ?? summary.firstStartedAt;
    const age = now.getTime() - Date.parse(since);
    const limit = MISSED_INTERVALS_ALLOWED * interval;
    if (age <= limit) {
      results.push({
        task: spec.task,
        ok: true,
        hasRun: true,
        detail: `${spec.task}: last succeeded ${summary.lastSucceededAt}`,
      });
      continue;
    }
    results.push({
      task: spec.task,
      ok: false,
      hasRun: true,
      detail: `${spec.task}: ${summary.lastSucceededAt ? `no success since ${summary.lastSucceededAt}` : 'never succeeded'} (${Math.round(age / 60_000)} min, more than ${MISSED_INTERVALS_ALLOWED} intervals of ${Math.round(interval / 1000)} s); last run ${summary.lastOutcome} at ${summary.lastStartedAt}`,
    });
  }
  return results;
}
