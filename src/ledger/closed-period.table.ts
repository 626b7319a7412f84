import type { Generated } from 'kysely';

/**
 * A closed month: its journals are final. Owned by the ledger (closed-period.repository.ts);
 * `paysync close` (src/exports) writes it through the ledger's index.ts; the ledger reads it
 * when it posts, so a late change is booked in the first open period instead.
 */
export interface ClosedPeriodTable {
  environment: string;
  /** `YYYY-MM`, a month of the books' zone. */
  period: string;
  /** The month's `[from, to)` in UTC, fixed at close time. */
  window_from: string;
  window_to: string;
  closed_at: string;
  closed_by: string;
  forced: number;
  reason: string | null;
  /** JSON: per format, the frozen file, its sha256 and its row count. */
  exports: string;
}

/**
 * Every close and reopen, with who and why: the audit trail of the periods. Owned by the ledger
 * (insertPeriodEvent); `paysync close` and `reopen` (src/exports) log through its index.ts.
 */
export interface PeriodEventTable {
  id: Generated<number>;
  environment: string;
  period: string;
  action: 'close' | 'reopen';
  at: string;
  by: string;
  reason: string | null;
  /** JSON: what the action saw (verdicts, files). */
  detail: string;
}

/** A journal that touched a closed period and was booked at the start of the first open one. */
export interface LateChangeTable {
  journal_id: number;
  closed_period: string;
  /** When the change really happened (the service's time). */
  original_effective_at: string;
  /** Where the ledger booked it: the first instant of the first open period. */
  booked_effective_at: string;
}
