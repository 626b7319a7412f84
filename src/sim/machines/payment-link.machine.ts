import { createPaymentIntent } from '../factories/create-payment-intent.ts';
import type { Machine } from './machine.ts';

/**
 * active → closed (PATCH close) | expired (at `expirationDate`) | completed (a successful
 * payment through the link; for subscription links, a finished card enrolment).
 */
export const paymentLinkMachine: Machine<'payment_link'> = {
  kind: 'payment_link',
  transitions: {
    active: ['closed', 'expired', 'completed'],
    closed: [],
    expired: [],
    completed: [],
  },
  enter(context, item, status) {
    if (status !== 'active') return;
    const lifetime = Date.parse(item.resource.expirationDate) - context.clock.nowMs();
    context.schedule(item, Math.max(0, lifetime), 'active', () =>
      context.transition(item, 'expired'),
    );
  },
  settle(context, item, to) {
    const link = item.resource;
    if (to !== 'completed' || link.type !== 'payment' || link.status !== 'active') return false;
    // A payment link completes when a payment through it succeeds, so pay it.
    const intent = createPaymentIntent(context, item.mode, {
      amount: link.amount ?? 1000,
      currency: link.currency,
      purchaseReference: link.purchaseReference,
      customerReference: link.customerReference,
      paymentLinkId: link.id,
    });
    context.settle(intent, 'successful');
    return true;
  },
};
