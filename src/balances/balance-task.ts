import { earliestKnownInstant } from '../ledger/index.ts';
import { dayOf, dayWindow, nextDay, previousDay } from '../books-calendar/index.ts';
import type { BalanceDependencies } from './balance-options.ts';
import { snapshotsAt } from './balance-snapshot.repository.ts';
import { takeBalanceSnapshot, type SnapshotOutcome } from './take-snapshot.ts';

export interface BalanceTaskResult {
  readonly current: SnapshotOutcome;
  /** End-of-day snapshots filled in by this run, by day. */
  readonly endOfDay: readonly { day: string; outcome: SnapshotOutcome }[];
}

/** How many missed days one run fills in, oldest first; the next run goes on. */
export const MAX_END_OF_DAY_FILLS = 31;

/**
 * The scheduled balance task: a snapshot now, then the end-of-day snapshot of every closed day
 * that lacks one (the service answers for a past `date`, so a day missed while paysync was down
 * is filled in later). Days start from the first item paysync knows, at most 31 per run.
 */
export async function runBalanceTask(
  deps: BalanceDependencies,
  options: { timeZone: string },
): Promise<BalanceTaskResult> {
  const current = await takeBalanceSnapshot(deps, { kind: 'scheduled' });
  if (!current.ok) return { current, endOfDay: [] };
  return { current, endOfDay: await fillEndOfDaySnapshots(deps, options) };
}

/**
 * The end-of-day snapshot of every closed day (in `timeZone`) since the first item paysync
 * knows that lacks one, oldest first, at most 31; stops at the first the service does not
 * answer. `paysync balances` runs it after its own snapshot, as the hourly task does.
 */
export async function fillEndOfDaySnapshots(
  deps: BalanceDependencies,
  options: { timeZone: string },
): Promise<{ day: string; outcome: SnapshotOutcome }[]> {
  const endOfDay: { day: string; outcome: SnapshotOutcome }[] = [];
  const earliest = await earliestKnownInstant(deps.db);
  if (earliest === undefined) return endOfDay;
  const lastClosed = previousDay(dayOf(deps.now(), options.timeZone));
  for (
    let day = dayOf(new Date(earliest), options.timeZone);
    day <= lastClosed && endOfDay.length < MAX_END_OF_DAY_FILLS;
    day = nextDay(day)
  ) {
    const end = dayWindow(day, options.timeZone).to;
    if ((await snapshotsAt(deps.db, deps.environment, end)).length > 0) continue;
    const outcome = await takeBalanceSnapshot(deps, { at: end, kind: 'end_of_day' });
    endOfDay.push({ day, outcome });
    if (!outcome.ok) break;
  }
  return endOfDay;
}
