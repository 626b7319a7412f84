/**
 * Reports: the daily verdict ("are yesterday's books right?"), the wording of every break, and
 * the books' days in `PAYSYNC_BOOKS_TIMEZONE`. Reads the ledger and the snapshots; never calls
 * the service.
 */
export type { DailyVerdictTable, Verdict } from './daily-verdict.table.ts';
export {
  BREAK_WORDING,
  describeBreak,
  describeExpectationBreak,
  type BreakLine,
} from './break-wording.ts';
export {
  buildDailyReport,
  DEFAULT_EXPECTATION_BREAK_VERDICT,
  DEFAULT_PENDING_SLA,
  pendingSlaOf,
  verdictExitCode,
  type CoverageCheck,
  type DailyReport,
  type DailyReportRequest,
  type ExpectationBreakCount,
  type PendingSla,
} from './daily-report.ts';
export {
  storedVerdictOf,
  storedVerdicts,
  storeVerdict,
  type StoredVerdict,
} from './daily-verdict.repository.ts';
export { judgeClosedDays, type ClosedDayDependencies } from './closed-day-verdicts.ts';
export {
  dayVerdict,
  judgeDay,
  VERDICT_LOOKBACK_DAYS,
  verdictRulesOf,
  verdictStorage,
  type DayVerdict,
  type StoredVerdictMark,
  type VerdictBooks,
  type VerdictRules,
  type VerdictSchedule,
  type VerdictSettings,
  type VerdictStorage,
} from './day-verdict.ts';
