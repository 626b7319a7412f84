import { SimError } from '../../engine/sim-error.ts';
import { presentForWire } from '../../engine/present-item.ts';
import type { SimItem } from '../../engine/sim-store.ts';
import { createPaymentLink } from '../../factories/create-payment-link.ts';
import { orderItems } from './list-window.ts';
import { visibleIn, type OperationHandlers } from './handler-types.ts';

/** Creation and close answer the link without its attempts; get and list include them. */
function withoutAttempts(link: SimItem<'payment_link'>): Record<string, unknown> {
  const { attempts: _attempts, ...rest } = presentForWire(link);
  return rest;
}

function within(value: string, from: string | undefined, to: string | undefined): boolean {
  const ms = Date.parse(value);
  return (
    (from === undefined || ms >= Date.parse(from)) && (to === undefined || ms <= Date.parse(to))
  );
}

export const paymentLinkHandlers: OperationHandlers<
  | 'createPaymentLink'
  | 'listPaymentLinks'
  | 'getPaymentLink'
  | 'closePaymentLink'
  | 'createSubscriptionLink'
> = {
  createPaymentLink({ runtime, mode = 'sandbox', body }) {
    const link = createPaymentLink(runtime.engine, mode, 'payment', {
      ...body,
      expirationDate: body.expiresAt,
    });
    return { body: withoutAttempts(link) };
  },

  createSubscriptionLink({ runtime, mode = 'sandbox', body }) {
    const link = createPaymentLink(runtime.engine, mode, 'subscription', {
      ...body,
      expirationDate: body.expiresAt,
    });
    return { body: withoutAttempts(link) };
  },

  listPaymentLinks({ runtime, mode, query }) {
    const { store } = runtime.engine;
    const candidates =
      query.purchaseReference === undefined
        ? store.list('payment_link')
        : store.withReference('payment_link', 'purchaseReference', query.purchaseReference);
    const matching = candidates.filter(
      ({ resource, mode: itemMode }) =>
        visibleIn(mode, { mode: itemMode }) &&
        (query.status === undefined || resource.status === query.status) &&
        within(resource.createdAt, query.fromCreatedAt, query.toCreatedAt) &&
        within(resource.expirationDate, query.fromExpirationDate, query.toExpirationDate),
    );
    return {
      body: orderItems([...matching], runtime.faults.listOrder, runtime.engine.random).map((item) =>
        presentForWire(item),
      ),
    };
  },

  getPaymentLink({ runtime, mode, params }) {
    const link = runtime.engine.store.get('payment_link', params.id);
    if (!link || !visibleIn(mode, link)) throw SimError.notFound('Payment link', params.id);
    return { body: presentForWire(link) };
  },

  closePaymentLink({ runtime, mode, params }) {
    const link = runtime.engine.store.get('payment_link', params.id);
    if (!link || !visibleIn(mode, link)) throw SimError.notFound('Payment link', params.id);
    const { status } = link.resource;
    // Closing twice is harmless; an expired or completed link cannot be closed (400: the
    // document lists no 409 here).
    if (status === 'expired' || status === 'completed') {
      throw SimError.validation([`payment link ${link.key} is ${status} and cannot be closed`]);
    }
    runtime.engine.transition(link, 'closed');
    return { body: withoutAttempts(link) };
  },
};
