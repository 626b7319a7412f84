import type { Selectable } from 'kysely';

export type Verdict = 'RECONCILED' | 'RECONCILED_WITH_PENDING' | 'BREAKS' | 'INCOMPLETE';

/** One stored verdict per closed day and environment, with the report it was drawn from. */
export interface DailyVerdictTable {
  environment: string;
  /** YYYY-MM-DD in `time_zone`. */
  day: string;
  time_zone: string;
  verdict: Verdict;
  /** The day's report as JSON. */
  report: string;
  computed_at: string;
}

export type DailyVerdictRow = Selectable<DailyVerdictTable>;
