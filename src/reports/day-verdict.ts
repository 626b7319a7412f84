import type { Kysely } from 'kysely';
import type { BalanceSettings, ExpectationSettings, JanitorSettings } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import { dayOf, dayWindow, previousDay } from '../books-calendar/index.ts';
import { earliestKnownInstant } from '../ledger/index.ts';
import { nextTick } from '../runs/index.ts';
import {
  buildDailyReport,
  pendingSlaOf,
  type CoverageCheck,
  type DailyReport,
  type PendingSla,
} from './daily-report.ts';
import { storedVerdictOf } from './daily-verdict.repository.ts';
import type { Verdict } from './daily-verdict.table.ts';

/** How far back the verdicts task looks for days to (re)judge. */
export const VERDICT_LOOKBACK_DAYS = 31;

/**
 * What a day's verdict rests on besides the books. Resolved once where a process is assembled
 * ({@link verdictRulesOf}), so `paysync report`, the verdicts task, the dashboard and the ops API
 * judge a day alike.
 */
export interface VerdictRules {
  /** @defaultValue {@link DEFAULT_PENDING_SLA} */
  readonly sla?: PendingSla;
  /** Without one, no day can be `RECONCILED`: the report cannot tell whether the sweeps covered it. */
  readonly coverage?: CoverageCheck;
  /** @defaultValue {@link DEFAULT_EXPECTATION_BREAK_VERDICT} */
  readonly expectationBreakVerdict?: readonly string[];
}

/** The settings the rules come from: `PAYSYNC_STUCK_*_AFTER`, `PAYSYNC_EXPECTATIONS_BREAK_VERDICT`. */
export interface VerdictSettings {
  readonly janitor: Pick<JanitorSettings, 'stuckAfterMs'>;
  readonly expectations: Pick<ExpectationSettings, 'breakVerdict'>;
}

/** The rules of a process, from its settings and the sweeps' coverage check of its books. */
export function verdictRulesOf(settings: VerdictSettings, coverage: CoverageCheck): VerdictRules {
  return {
    sla: pendingSlaOf(settings.janitor.stuckAfterMs),
    coverage,
    expectationBreakVerdict: settings.expectations.breakVerdict,
  };
}

/** One environment's books and the rules its verdicts are judged by. */
export interface VerdictBooks {
  readonly db: Kysely<Database>;
  readonly environment: string;
  /** `PAYSYNC_BOOKS_TIMEZONE`: the zone whose midnights close the days. */
  readonly timeZone: string;
  readonly rules: VerdictRules;
}

/**
 * The one function that decides a day's verdict: what `paysync report --date <day>` prints, what
 * the verdicts task stores, what the dashboard and the ops API show.
 */
export function judgeDay(books: VerdictBooks, day: string, now: Date): Promise<DailyReport> {
  const { rules } = books;
  return buildDailyReport({
    db: books.db,
    environment: books.environment,
    day,
    timeZone: books.timeZone,
    now,
    ...(rules.sla ? { sla: rules.sla } : {}),
    ...(rules.coverage ? { coverage: rules.coverage } : {}),
    ...(rules.expectationBreakVerdict
      ? { expectationBreakVerdict: rules.expectationBreakVerdict }
      : {}),
  });
}

/** The end-of-day snapshot the verdicts task waits for before it judges a day. */
export async function hasEndOfDaySnapshot(
  books: Pick<VerdictBooks, 'db' | 'environment' | 'timeZone'>,
  day: string,
): Promise<boolean> {
  const snapshot = await books.db
    .selectFrom('balance_snapshots')
    .select('id')
    .where('environment', '=', books.environment)
    .where('as_of', '=', dayWindow(day, books.timeZone).to)
    .limit(1)
    .executeTakeFirst();
  return snapshot !== undefined;
}

/** The first day the verdicts task judges on a run at `now`. */
export function firstJudgedDay(now: Date, timeZone: string): string {
  let day = previousDay(dayOf(now, timeZone));
  for (let i = 1; i < VERDICT_LOOKBACK_DAYS; i += 1) day = previousDay(day);
  return day;
}

/** When the scheduler fires the tasks a stored verdict waits for (machine's zone, like node-cron). */
export type VerdictSchedule = Pick<BalanceSettings, 'cron' | 'verdictCron'>;

/** A stored verdict, in short. */
export interface StoredVerdictMark {
  readonly verdict: Verdict;
  readonly computedAt: string;
}

/**
 * Whether a day's verdict is stored, and if not, when the verdicts task stores it:
 * - `stored`: the stored verdict is the one computed now;
 * - `kept`: a stored `RECONCILED` that the task does not judge again, though the day now judges
 *   otherwise;
 * - `due`: the task stores it at `at` (after the balances task takes the end-of-day snapshot at
 *   `snapshotAt`, when it is missing), replacing `replaces` if one is stored;
 * - `not_scheduled`: no task will, because of `because` (`before_first_item`: the balances task
 *   takes no end-of-day snapshot of a day before the first item paysync knows).
 */
export type VerdictStorage =
  | { readonly state: 'stored'; readonly computedAt: string }
  | { readonly state: 'kept'; readonly stored: StoredVerdictMark }
  | {
      readonly state: 'due';
      readonly at: string;
      readonly snapshotAt?: string;
      readonly replaces?: StoredVerdictMark;
    }
  | {
      readonly state: 'not_scheduled';
      readonly because:
        'verdict_task_off' | 'balance_task_off' | 'older_than_lookback' | 'before_first_item';
      readonly replaces?: StoredVerdictMark;
    };

/**
 * The storage of `day`'s verdict at `now`, given the verdict computed now (`current`; none for a
 * day not over). The times follow the verdicts task's rules: a day is judged once it is over and
 * its end-of-day snapshot is in, on the first tick of `PAYSYNC_VERDICT_CRON` after that.
 */
export async function verdictStorage(
  books: VerdictBooks,
  schedule: VerdictSchedule,
  day: string,
  now: Date,
  current?: Verdict,
): Promise<VerdictStorage> {
  const row = await storedVerdictOf(books.db, books.environment, day);
  const stored = row ? { verdict: row.verdict, computedAt: row.computedAt } : undefined;
  if (stored && (current === undefined || stored.verdict === current)) {
    return { state: 'stored', computedAt: stored.computedAt };
  }
  if (stored?.verdict === 'RECONCILED') return { state: 'kept', stored };
  const replaces = stored ? { replaces: stored } : {};
  if (day < firstJudgedDay(now, books.timeZone)) {
    return { state: 'not_scheduled', because: 'older_than_lookback', ...replaces };
  }
  if (schedule.verdictCron === 'off') {
    return { state: 'not_scheduled', because: 'verdict_task_off', ...replaces };
  }
  const end = Date.parse(dayWindow(day, books.timeZone).to);
  // A tick at the very end of the day already sees the day over.
  let after = new Date(Math.max(now.getTime(), end - 1));
  let snapshotAt: Date | undefined;
  if (!(await hasEndOfDaySnapshot(books, day))) {
    // The balances task fills in end-of-day snapshots from the day of the first item it knows.
    const earliest = await earliestKnownInstant(books.db);
    const today = dayOf(now, books.timeZone);
    if (
      day < today &&
      (earliest === undefined || day < dayOf(new Date(earliest), books.timeZone))
    ) {
      return { state: 'not_scheduled', because: 'before_first_item', ...replaces };
    }
    snapshotAt = nextTick(schedule.cron, after);
    if (!snapshotAt) return { state: 'not_scheduled', because: 'balance_task_off', ...replaces };
    after = snapshotAt;
  }
  const at = nextTick(schedule.verdictCron, after)!;
  return {
    state: 'due',
    at: at.toISOString(),
    ...(snapshotAt ? { snapshotAt: snapshotAt.toISOString() } : {}),
    ...replaces,
  };
}

/** A day's verdict as computed now, and whether (or when) it is stored. */
export interface DayVerdict {
  readonly report: DailyReport;
  readonly storage: VerdictStorage;
}

/** {@link judgeDay}, with {@link verdictStorage} beside it. */
export async function dayVerdict(
  books: VerdictBooks,
  schedule: VerdictSchedule,
  day: string,
  now: Date,
): Promise<DayVerdict> {
  const report = await judgeDay(books, day, now);
  return { report, storage: await verdictStorage(books, schedule, day, now, report.verdict) };
}
