import type { ObservedVia } from '../resources/index.ts';
import type { AccountName } from './accounts.ts';
import type { PollPlan } from './poll-plan.ts';
import type { JournalEntryType, JournalVia } from './journal.table.ts';
import type { JournalResourceKind, LedgerResourceKind } from './ledger-resource-kind.ts';
import type { MirrorRecord } from './mirror-records.ts';

/** How and when the caller learned the state it hands to an `apply…` function. */
export interface Observation {
  readonly via: ObservedVia;
  /** The inbox row whose webhook caused the fetch, when one did. */
  readonly inboxId?: number;
  /** When the state was fetched: UTC ISO 8601 (normalised to milliseconds). */
  readonly observedAt: string;
  /** The janitor's schedule, for the next poll set on a change. @defaultValue `DEFAULT_POLL_PLAN` */
  readonly pollPlan?: PollPlan;
}

/** One posting. Debits are positive, credits negative; integers in the smallest unit. */
export interface JournalLine {
  readonly account: AccountName;
  readonly currency: string;
  readonly amount: number;
}

export interface JournalSummary {
  readonly id: number;
  readonly resourceKind: JournalResourceKind;
  readonly resourceId: string;
  /** `settlement-<n>` or `reversal-<n>`. */
  readonly settlementKey: string;
  readonly entryType: JournalEntryType;
  readonly reversesJournalId: number | null;
  readonly description: string;
  /** The service's updatedAt of the state that was booked. */
  readonly effectiveAt: string;
  readonly postedAt: string;
  readonly via: JournalVia;
  readonly inboxId: number | null;
  readonly lines: readonly JournalLine[];
}

/**
 * What paysync could not reconcile. Kinds written by the ledger: `status_regression`,
 * `settlement_reversed`, `terminal_status_changed`, `amount_changed`, `same_version_conflict`;
 * by jobs: `unknown_upstream_resource`, `contract_error` (any other string is allowed).
 */
export type DiscrepancyKind =
  | 'status_regression'
  | 'settlement_reversed'
  | 'terminal_status_changed'
  | 'amount_changed'
  | 'same_version_conflict'
  | 'unknown_upstream_resource'
  | 'contract_error'
  | (string & {});

export interface DiscrepancySummary {
  readonly id: number;
  readonly kind: DiscrepancyKind;
  readonly resourceKind: string | null;
  readonly resourceId: string | null;
  readonly detail: Readonly<Record<string, unknown>>;
  readonly rawBody: string | null;
  readonly inboxId: number | null;
  readonly dedupeKey: string;
  readonly createdAt: string;
  readonly resolvedAt: string | null;
}

/** What one `apply…` call did, so the job can enqueue alerts and receipts after commit. */
export interface ApplyOutcome {
  readonly kind: LedgerResourceKind;
  readonly id: string;
  /** True when the mirror took this state (first sighting or a newer updatedAt). */
  readonly changed: boolean;
  /** True when the state was older than the mirror's and was ignored. */
  readonly stale: boolean;
  /** The mirror's status before, undefined on the first sighting. */
  readonly previousStatus?: string;
  /** The mirror's (monotonic) status after. */
  readonly status: string;
  /** What the service said; differs from `status` only when a regression was held back. */
  readonly upstreamStatus: string;
  readonly journalsPosted: readonly JournalSummary[];
  /** Discrepancies recorded by this call (not ones already on file). */
  readonly discrepancies: readonly DiscrepancySummary[];
  /**
   * The item as the mirror holds it after this state was taken, when it was (`changed`); what
   * the relay's events carry (src/relay). Its `firstSeenAt` and `lastSyncedAt` are this
   * observation's time, not the row's.
   */
  readonly record?: MirrorRecord;
}

export interface StatusChange {
  readonly fromStatus: string | null;
  readonly toStatus: string;
  readonly observedAt: string;
  readonly via: ObservedVia;
  readonly inboxId: number | null;
  readonly serviceUpdatedAt: string;
}
