/** The resources the service issues receipts for. */
export type ReceiptKind = 'payment_intent' | 'transfer';

export const RECEIPT_KINDS: readonly ReceiptKind[] = ['payment_intent', 'transfer'];

/** The kind of a receipt-bearing id (`pi_…`, `tr_…`), or undefined for any other id. */
export function receiptKindOfId(id: string): ReceiptKind | undefined {
  if (id.startsWith('pi_')) return 'payment_intent';
  if (id.startsWith('tr_')) return 'transfer';
  return undefined;
}
