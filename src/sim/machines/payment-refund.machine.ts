import { REFUND_REJECTED } from '../sandbox-outcomes.ts';
import type { Machine } from './machine.ts';

/**
 * created → pending → successful | failed. A successful payment refund takes its amount out
 * of the collection account.
 */
export const paymentRefundMachine: Machine<'payment_refund'> = {
  kind: 'payment_refund',
  transitions: {
    created: ['pending', 'failed'],
    pending: ['successful', 'failed'],
    successful: [],
    failed: [],
  },
  prepare(_context, item, to) {
    if (to === 'failed') item.resource.failureCause = item.plan.failureCause ?? REFUND_REJECTED;
  },
  enter(context, item, status) {
    const { timings } = context;
    if (status === 'created') {
      context.schedule(item, timings.refundPendingAfterMs, 'created', () =>
        context.transition(item, 'pending'),
      );
    } else if (status === 'pending') {
      const wait = item.plan.settleAfterMs ?? timings.refundSettleAfterMs;
      context.schedule(item, wait, 'pending', () => context.transition(item, item.plan.final));
    } else if (status === 'successful') {
      const { resource, mode } = item;
      context.move(
        mode,
        'collection',
        resource.currency,
        -resource.amount,
        'payment_refund',
        String(resource.id),
      );
    }
  },
};
