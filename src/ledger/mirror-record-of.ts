import type { MirrorRecord } from './mirror-records.ts';
import type { MirrorColumns, MirrorTable } from './mirror-writer.ts';
import type { PaymentIntentRow } from './payment-intent.table.ts';
import { toPaymentIntentRecord } from './payment-intent.repository.ts';
import type { RefundRow } from './refund.table.ts';
import { toRefundRecord } from './refund.repository.ts';
import type { TransferRow } from './transfer.table.ts';
import { toTransferRecord } from './transfer.repository.ts';

/** The record of a mirror row the ledger is about to write (no read back: the row is these columns). */
export function mirrorRecordOf(
  table: MirrorTable,
  columns: MirrorColumns[MirrorTable],
): MirrorRecord {
  switch (table) {
    case 'payment_intents':
      return toPaymentIntentRecord(columns as PaymentIntentRow);
    case 'transfers':
      return toTransferRecord(columns as TransferRow);
    case 'refunds':
      return toRefundRecord(columns as RefundRow);
  }
}
