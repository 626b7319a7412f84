/**
 * The ledger: mirror rows with a monotonic status, status history, double-entry journals and
 * discrepancies. Every function takes the executor first; the caller opens the transaction
 * so one job's writes commit together. The ledger never calls the service.
 */
export { Account, ACCOUNT_NAMES, type AccountName } from './accounts.ts';
export { LEDGER_RESOURCE_KINDS, type LedgerResourceKind } from './ledger-resource-kind.ts';
export type { Executor } from '../db/index.ts';
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
export type { RefundKind } from './refund.table.ts';
export type { JournalEntryType } from './journal.table.ts';
export { LedgerError, type LedgerErrorCode } from './ledger-errors.ts';
export { isAbsorbing, isTerminal } from './status-rules.ts';

export { applyPaymentIntent } from './apply-payment-intent.ts';
export { applyTransfer } from './apply-transfer.ts';
export { applyRefund } from './apply-refund.ts';
export { applyPaymentRefund } from './apply-payment-refund.ts';
export {
  openDiscrepancies,
  recordDiscrepancy,
  resolveDiscrepancy,
  type NewDiscrepancy,
  type RecordedDiscrepancy,
} from './discrepancy.repository.ts';

export { findResource, type FindResourceOptions, type ResourceView } from './find-resource.ts';
export { listResources, type ListResourcesOptions } from './list-resources.ts';
export {
  accountBalances,
  countsByStatus,
  unbalancedJournals,
  type AccountBalance,
  type StatusCount,
  type UnbalancedJournal,
} from './ledger-reports.ts';
export { journalsFor, settlementJournalCount } from './journal.repository.ts';
export { transferReferenceOf } from './transfer.repository.ts';
