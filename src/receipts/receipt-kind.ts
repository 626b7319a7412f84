import { kindOfId } from '../resources/index.ts';

/** The resources the service issues receipts for. */
export type ReceiptKind = 'payment_intent' | 'transfer';

export const RECEIPT_KINDS: readonly ReceiptKind[] = ['payment_intent', 'transfer'];

/** The kind of a receipt-bearing id (`pi_…`, `tr_…`), or undefined for any other id. */
export function receiptKindOfId(id: string): ReceiptKind | undefined {
  const kind = kindOfId(id);
  return RECEIPT_KINDS.find((receiptKind) => receiptKind === kind);
}
