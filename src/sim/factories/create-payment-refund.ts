import { SimError } from '../engine/sim-error.ts';
import type { SimItem } from '../engine/sim-store.ts';
import type { MachineContext } from '../machines/machine.ts';

export interface PaymentRefundInput {
  /** Partial refunds are allowed; the default is what is left to refund. */
  amount?: number | undefined;
  reason?: string | undefined;
}

/**
 * Refunds (part of) a successful payment intent. Unknown intent: 404. An intent that is not
 * successful, or nothing left to refund: 409. More than what is left: 400.
 */
export function createPaymentRefund(
  context: MachineContext,
  intentId: string,
  input: PaymentRefundInput,
): SimItem<'payment_refund'> {
  const intent = context.store.get('payment_intent', intentId);
  if (!intent) throw SimError.notFound('Payment', intentId);
  if (intent.resource.status !== 'successful') {
    throw SimError.conflict(
      `Payment ${intent.key} is ${intent.resource.status}; only successful payments can be refunded`,
    );
  }
  const refunded = context.store
    .withReference('payment_refund', 'paymentIntentId', intent.key)
    .filter((refund) => refund.resource.status !== 'failed')
    .reduce((sum, refund) => sum + refund.resource.amount, 0);
  const refundable = intent.resource.amount - refunded;
  if (refundable <= 0) throw SimError.conflict(`Payment ${intent.key} is already fully refunded`);
  const amount = input.amount ?? refundable;
  if (amount > refundable) {
    throw SimError.validation([
      `amount must not be greater than the refundable amount ${refundable}`,
    ]);
  }
  const id = context.store.nextNumericId();
  const now = context.clock.iso();
  return context.create(
    'payment_refund',
    intent.mode,
    {
      id,
      paymentIntentId: intent.key,
      status: 'created',
      amount,
      currency: intent.resource.currency,
      reason: input.reason ?? '',
      mode: intent.mode,
      createdAt: now,
      updatedAt: now,
    },
    { final: intent.plan.refundOutcome === 'failed' ? 'failed' : 'successful' },
    { paymentIntentId: intent.key },
  );
}
