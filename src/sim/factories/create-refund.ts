import { SimError } from '../engine/sim-error.ts';
import type { RefundResource } from '../engine/sim-resources.ts';
import type { SimItem } from '../engine/sim-store.ts';
import type { MachineContext } from '../machines/machine.ts';

export interface RefundInput {
  /** The transfer being refunded (`tr_…`). */
  transactionId: string;
  reason?: string | undefined;
  paymentMethod?: RefundResource['paymentMethod'] | undefined;
  fallbackAllowed?: boolean | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/**
 * Refunds a successful transfer in full. Unknown transfer: 404. A transfer that is not
 * successful, or already has a refund that did not fail: 409.
 */
export function createRefund(context: MachineContext, input: RefundInput): SimItem<'refund'> {
  const transfer = context.store.get('transfer', input.transactionId);
  if (!transfer) throw SimError.notFound('Transaction', input.transactionId);
  if (transfer.resource.status !== 'successful') {
    throw SimError.conflict(
      `Transfer ${transfer.key} is ${transfer.resource.status}; only successful transfers can be refunded`,
    );
  }
  const earlier = context.store
    .withReference('refund', 'transactionId', transfer.key)
    .find((refund) => refund.resource.status !== 'failed');
  if (earlier)
    throw SimError.conflict(`Transfer ${transfer.key} is already refunded by ${earlier.key}`);
  const id = context.store.nextNumericId();
  const now = context.clock.iso();
  const paymentMethod = input.paymentMethod ?? 'mobile_money';
  return context.create(
    'refund',
    transfer.mode,
    {
      id,
      status: 'created',
      transactionId: transfer.key,
      amount: transfer.resource.amount,
      currency: transfer.resource.currency,
      reason: input.reason ?? '',
      paymentMethod,
      fallbackAllowed: input.fallbackAllowed ?? false,
      fallbackUsed: false,
      metadata: input.metadata ?? {},
      supportTicketId: `TCK-${id}`,
      createdAt: now,
      updatedAt: now,
    },
    { final: transfer.plan.refundOutcome ?? 'successful' },
    { transactionId: transfer.key },
  );
}
