import { SimError } from '../../engine/sim-error.ts';
import type { SimItem } from '../../engine/sim-store.ts';
import type { SimRuntime } from '../../sim-runtime.ts';
import type { OperationHandlers } from './handler-types.ts';

/** Receipt ids are `rc_` + the transaction id (`rc_tr_…`, `rc_pi_…`). */
export const RECEIPT_ID_PREFIX = 'rc_';

function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function transactionOf(
  runtime: SimRuntime,
  id: string,
): SimItem<'transfer'> | SimItem<'payment_intent'> | undefined {
  const { store } = runtime.engine;
  return store.peek('transfer', id) ?? store.peek('payment_intent', id);
}

function receiptHtml(
  item: SimItem<'transfer'> | SimItem<'payment_intent'>,
  merchantId: string,
): string {
  const { resource } = item;
  const rows: [string, unknown][] = [
    ['Receipt', `${RECEIPT_ID_PREFIX}${resource.id}`],
    ['Transaction', resource.id],
    ['Merchant', merchantId],
    ['Status', resource.status],
    ['Amount', `${resource.amount} ${resource.currency}`],
    ['Date', resource.updatedAt],
    ...(item.kind === 'transfer'
      ? ([
          [
            'Recipient',
            `${item.resource.destination.recipientName} (${item.resource.destination.number})`,
          ],
          ['Fees', item.resource.fees.reduce((sum, fee) => sum + fee.amount, 0)],
        ] as [string, unknown][])
      : ([['Purchase reference', item.resource.purchaseReference]] as [string, unknown][])),
  ];
  const body = rows.map(
    ([label, value]) => `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
  );
  return `<!doctype html><html><head><meta charset="utf-8"><title>Receipt ${escapeHtml(resource.id)}</title></head><body><table>${body.join('')}</table></body></html>`;
}

export const receiptHandlers: OperationHandlers<'getReceiptHtml'> = {
  getReceiptHtml({ runtime, params, query }) {
    const isReceiptId = query.isReceiptId ?? params.id.startsWith(RECEIPT_ID_PREFIX);
    const transactionId = isReceiptId ? params.id.slice(RECEIPT_ID_PREFIX.length) : params.id;
    const item =
      isReceiptId && !params.id.startsWith(RECEIPT_ID_PREFIX)
        ? undefined
        : transactionOf(runtime, transactionId);
    if (!item) throw SimError.notFound(isReceiptId ? 'Receipt' : 'Transaction', params.id);
    const { status } = item.resource;
    if (status !== 'successful' && status !== 'failed') {
      throw SimError.conflict(
        `Transaction ${item.key} is ${status}; a receipt exists once it is successful or failed`,
      );
    }
    return { body: { view: receiptHtml(item, runtime.options.merchantId) } };
  },
};
