/**
 * The resource view: everything paysync knows about one item (`paysync show`, the ops API's
 * item and the dashboard's item page): the ledger's mirror row, status history, journals and
 * discrepancies beside the inbox events that named it, and the refunds and reversals that touch
 * it. A read model over two components, so that neither the ledger nor the inbox depends on the
 * other.
 */
export {
  findResource,
  type FindResourceOptions,
  type ItemRefund,
  type ItemReversal,
  type RefundedItem,
  type ResourceView,
} from './find-resource.ts';
