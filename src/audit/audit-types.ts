/**
 * What the auditor can find. Each check has one name; a violation names the rows involved.
 * The names are stable: tests, scripts and the chaos run match on them.
 */
export const AUDIT_CHECKS = [
  'unbalanced_journal',
  'duplicate_settlement',
  'dangling_reversal',
  'reversal_mismatch',
  'settled_item_unbooked',
  'unsettled_item_booked',
  'journal_without_item',
  'inbox_processed_uncovered',
  'outbox_stalled',
  'outbox_inconsistent',
  'unsafe_integer',
  'day_total_mismatch',
  'status_mismatch',
  'item_missing',
  'item_unknown',
  'movement_mismatch',
  'balance_mismatch',
] as const;

export type AuditCheck = (typeof AUDIT_CHECKS)[number];

/** One thing wrong with the books, with the ids a person needs to look it up. */
export interface AuditViolation {
  readonly check: AuditCheck;
  /** One line, naming every id involved. */
  readonly message: string;
  /** The same ids, for machines (`--json`). */
  readonly ids: Readonly<Record<string, string | number | readonly (string | number)[]>>;
}

/** What was looked at, so a clean report says how much it vouches for. */
export interface AuditCounts {
  journals: number;
  lines: number;
  items: number;
  inboxProcessed: number;
  /** Undefined when the `outbox` table does not exist (before migration 0008). */
  outbox: number | undefined;
  /** Items in the ground truth that were compared, when a truth was given. */
  truthItems: number | undefined;
  movements: number | undefined;
}

/** What an incremental audit reads: everything that changed since a watermark. */
export interface AuditScope {
  /** Mirror rows synced and inbox rows processed at or after this time (UTC ISO 8601). */
  readonly from: string;
  /** Journals with a higher id (posted after the watermark was read). */
  readonly journalIdAfter: number;
  /** Inbox rows with a higher id (received after the watermark was read). */
  readonly inboxIdAfter: number;
}

/** What an incremental audit read: the changes since a watermark (docs/audit.md). */
export interface AuditScopeReport {
  /** Mirror rows synced and inbox rows processed at or after this time. */
  readonly from: string;
  /** Journals with a higher id, and every journal of the items they touch. */
  readonly journalIdAfter: number;
  /** Inbox rows with a higher id. */
  readonly inboxIdAfter: number;
  /** The clean audit whose watermark gave the ids, or null (ids from the start). */
  readonly basedOnRun: { readonly id: number; readonly startedAt: string } | null;
}

export interface AuditReport {
  readonly clean: boolean;
  /** `full`: every row; `incremental`: what changed since `scope` (`--since`). */
  readonly mode: 'full' | 'incremental';
  /** One sentence: which mode ran and what it covered. */
  readonly range: string;
  /** The incremental audit's scope; null for a full audit. */
  readonly scope: AuditScopeReport | null;
  /** What this audit saw when it began: the next `--since last-clean` starts here. */
  readonly watermark: {
    readonly startedAt: string;
    readonly maxJournalId: number;
    readonly maxInboxId: number;
  };
  /** The id of the clean-audit record written (`record`), or null (not clean, or not asked). */
  readonly recordedRun: number | null;
  /** When the audit ran, UTC ISO 8601 with milliseconds. */
  readonly auditedAt: string;
  readonly durationMs: number;
  readonly counts: AuditCounts;
  readonly violations: readonly AuditViolation[];
  /** Checks that could not run, and why (e.g. no outbox table yet). */
  readonly skipped: readonly string[];
}
