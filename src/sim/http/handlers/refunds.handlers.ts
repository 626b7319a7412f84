import { SimError } from '../../engine/sim-error.ts';
import { presentForWire } from '../../engine/present-item.ts';
import { createPaymentRefund } from '../../factories/create-payment-refund.ts';
import { createRefund } from '../../factories/create-refund.ts';
import { orderItems } from './list-window.ts';
import { visibleIn, type OperationHandlers } from './handler-types.ts';

export const refundHandlers: OperationHandlers<
  | 'createTransferRefund'
  | 'createRefund'
  | 'listRefunds'
  | 'getRefund'
  | 'createPaymentRefund'
  | 'getPaymentRefundStatus'
> = {
  createTransferRefund({ runtime, mode, body }) {
    const transfer = runtime.engine.store.get('transfer', body.transactionId);
    if (transfer && !visibleIn(mode, transfer))
      throw SimError.notFound('Transaction', body.transactionId);
    return { body: presentForWire(createRefund(runtime.engine, body)) };
  },

  createRefund({ runtime, body }) {
    return { body: presentForWire(createRefund(runtime.engine, body)) };
  },

  listRefunds({ runtime, mode }) {
    const refunds = runtime.engine.store.list('refund').filter((item) => visibleIn(mode, item));
    return {
      body: orderItems([...refunds], runtime.faults.listOrder, runtime.engine.random).map((item) =>
        presentForWire(item),
      ),
    };
  },

  getRefund({ runtime, mode, params }) {
    const refund = /^\d+$/.test(params.id)
      ? runtime.engine.store.peek('refund', params.id)
      : undefined;
    if (!refund || !visibleIn(mode, refund)) throw SimError.notFound('Refund', params.id);
    return { body: presentForWire(refund) };
  },

  createPaymentRefund({ runtime, mode, params, body }) {
    const intent = runtime.engine.store.get('payment_intent', params.id);
    if (intent && !visibleIn(mode, intent)) throw SimError.notFound('Payment', params.id);
    return { body: presentForWire(createPaymentRefund(runtime.engine, params.id, body)) };
  },

  getPaymentRefundStatus({ runtime, mode, params }) {
    const refund = runtime.engine.store.peek('payment_refund', params.refundId);
    if (!refund || !visibleIn(mode, refund))
      throw SimError.notFound('Payment refund', params.refundId);
    return { body: presentForWire(refund) };
  },
};
