/**
 * The ledger: mirror rows with a monotonic status, status history, double-entry journals and
 * discrepancies. Every function takes the executor first; the caller opens the transaction
 * so one job's writes commit together. The ledger never calls the service.
 */
export {
  Account,
  ACCOUNT_NAMES,
  adjustmentAccountProblem,
  SERVICE_ACCOUNTS,
  serviceAccountTypeOf,
  type AccountName,
  type ServiceAccountName,
  type ServiceAccountType,
} from './accounts.ts';
export {
  LEDGER_RESOURCE_KINDS,
  type JournalResourceKind,
  type LedgerResourceKind,
} from './ledger-resource-kind.ts';
export type { Executor } from '../db/index.ts';
export {
  closedPeriodByWindow,
  closedPeriodsOf,
  deleteClosedPeriod,
  findClosedPeriod,
  insertClosedPeriod,
  insertPeriodEvent,
  type ClosedPeriodRow,
  type NewPeriodEvent,
} from './closed-period.repository.ts';
export {
  finalItemsWithout,
  type FinalItem,
  type FinalItemKind,
  type RecordOfMirrorRow,
} from './final-items-without.ts';
export type {
  ApplyOutcome,
  DiscrepancyKind,
  DiscrepancySummary,
  JournalLine,
  JournalSummary,
  Observation,
  StatusChange,
} from './ledger-types.ts';
export type {
  MirrorRecord,
  PaymentIntentRecord,
  RefundRecord,
  TransferFeeRecord,
  TransferRecord,
} from './mirror-records.ts';
export type { JournalEntryType } from './journal.table.ts';
export { LedgerError, type LedgerErrorCode } from './ledger-errors.ts';
export { isAbsorbing, isTerminal } from './status-rules.ts';

export { applyBatch } from './apply-batch.ts';
export { fetchCoverages, type CoverageHandle } from './fetch-coverages.ts';
export type { BatchEntry, LedgerFetchedState } from './observed-state.ts';
export { applyPaymentIntent } from './apply-payment-intent.ts';
export { applyTransfer } from './apply-transfer.ts';
export { applyRefund } from './apply-refund.ts';
export { applyPaymentRefund } from './apply-payment-refund.ts';
export {
  discrepanciesFor,
  discrepancyExists,
  openDiscrepancies,
  openDiscrepancyCounts,
  openDriftDetails,
  recordDiscrepancy,
  resolveDiscrepancy,
  type NewDiscrepancy,
  type RecordedDiscrepancy,
} from './discrepancy.repository.ts';

export { findMirrorRecord } from './find-mirror-record.ts';
export { mirrorCreationTimes, type NamedItem } from './creation-times.repository.ts';
export { listResources, type ListResourcesOptions } from './list-resources.ts';
export {
  accountBalances,
  accountsBookedIn,
  balancesBefore,
  countsByStatus,
  journalCount,
  journalLinesBetween,
  lateChangesIn,
  lineTotalsByEntryType,
  resourceIdsCreatedIn,
  serviceBalancesAsOf,
  unbalancedJournals,
  type AccountBalance,
  type EntryTypeTotal,
  type InstantWindow,
  type JournalNear,
  type LateChangeJournal,
  type StatusCount,
  type UnbalancedJournal,
} from './ledger-reports.ts';
export { journalsFor, settlementJournalCount } from './journal.repository.ts';
export { latestFailedTransferId, transferReferenceOf } from './transfer.repository.ts';
export { knownRefundIds, refundIdsOf, refundsOf } from './refund.repository.ts';
export {
  journalPageReader,
  type JournalHeadRow,
  type JournalLineRow,
  type JournalPageCursor,
  type JournalPageOptions,
  type JournalPageReader,
} from './journal-pages.repository.ts';
export {
  claimDuePoll,
  duePolls,
  fetchCoverage,
  markStuck,
  recordFetchCoverage,
  recordFetchCoverages,
  stuckCandidates,
  type DuePoll,
  type FetchCoverage,
  type MirrorItemKey,
  type StuckCandidate,
  type StuckRule,
} from './mirror-poll.repository.ts';
export {
  DEFAULT_POLL_GAPS,
  DEFAULT_POLL_PLAN,
  pollKindOf,
  type PollKind,
  type PollPlan,
} from './poll-plan.ts';
export {
  bookAdjustment,
  bookOpeningBalance,
  findAdjustment,
  hasOpeningBalances,
  lastOpeningSequence,
  listAdjustments,
  type BookedAdjustment,
  type NewAdjustment,
  type NewOpeningBalance,
} from './book-adjustment.ts';
export {
  paymentIntentSettlementLines,
  transferSettlementLines,
  transferRefundSettlementLines,
  paymentRefundSettlementLines,
} from './settlement-lines.ts';
export { earliestKnownInstant, openItems, type OpenItem } from './open-items.ts';
export {
  firstSightingsVia,
  firstSightingVia,
  statusHistoryFor,
} from './status-history.repository.ts';
export { pairServiceBalances, type ServiceBalancePair } from './service-balance-pairs.ts';
export {
  settledItems,
  type SettledItemKind,
  type SettledItemRange,
  type SettledItemSelector,
  type SettledLedgerItem,
} from './settled-items.ts';
