/**
 * The receipt archive: the service's HTML receipt of every settled payment intent and
 * transfer, stored content-addressed under `PAYSYNC_RECEIPTS_DIR`. See docs/receipts.md.
 */
export { RECEIPT_KINDS, receiptKindOfId, type ReceiptKind } from './receipt-kind.ts';
export {
  DEFAULT_RECEIPT_GIVE_UP_AFTER_MS,
  DEFAULT_RECEIPT_RETRY_DELAYS_MS,
  fetchReceipt,
  fetchReceipts,
  type ReceiptBatchResult,
  type ReceiptBatchRow,
  type ReceiptDependencies,
  type ReceiptOutcome,
  type ReceiptRequest,
} from './fetch-receipt.ts';
export {
  archiveReceipt,
  archiveReceipts,
  receiptFilePath,
  type ArchivedReceipt,
} from './receipt-store.ts';
export {
  hasReceipt,
  latestReceiptColumn,
  receiptsFor,
  settledWithoutReceipt,
  type SettledItem,
} from './receipt.repository.ts';
export {
  backfillReceipts,
  type BackfillReceiptsOptions,
  type BackfillReceiptsResult,
} from './backfill-receipts.ts';
export { explainMissingReceipt } from './explain-missing-receipt.ts';
export type { ReceiptRow, ReceiptTable } from './receipt.table.ts';
