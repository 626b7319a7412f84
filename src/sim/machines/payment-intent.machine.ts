import { FORCED_FAILURE, OTP_EXPIRED } from '../sandbox-outcomes.ts';
import type { PaymentAttempt } from '../engine/sim-resources.ts';
import type { SimItem } from '../engine/sim-store.ts';
import type { Machine, MachineContext } from './machine.ts';

/** Keeps the link's view of this intent's attempt in step, and completes the link on success. */
function followLink(
  context: MachineContext,
  item: SimItem<'payment_intent'>,
  status: string,
): void {
  const linkId = item.plan.paymentLinkId;
  const link = linkId === undefined ? undefined : context.store.get('payment_link', linkId);
  if (!link) return;
  const attempt = link.resource.attempts.find((a) => a.paymentIntentId === item.resource.id);
  if (attempt) attempt.status = item.resource.status;
  if (status === 'successful' && link.resource.status === 'active') {
    context.transition(link, 'completed');
  } else {
    context.touched(link);
  }
}

function currentAttempt(item: SimItem<'payment_intent'>): PaymentAttempt | undefined {
  return item.resource.payments.at(-1);
}

function markAttempt(
  item: SimItem<'payment_intent'>,
  status: PaymentAttempt['status'],
  at: string,
): PaymentAttempt | undefined {
  const attempt = currentAttempt(item);
  if (attempt) {
    attempt.status = status;
    attempt.updatedAt = at;
  }
  return attempt;
}

/**
 * payment_required → processing → successful | failed, with action_required (OTP) between
 * for the OTP sandbox numbers, and canceled from any open status. A failed intent moves back
 * to processing (or action_required) when a new payment attempt is made on it.
 */
export const paymentIntentMachine: Machine<'payment_intent'> = {
  kind: 'payment_intent',
  transitions: {
    payment_required: ['processing', 'action_required', 'failed', 'canceled'],
    action_required: ['processing', 'failed', 'canceled'],
    processing: ['successful', 'failed'],
    failed: ['processing', 'action_required'],
    successful: [],
    canceled: [],
  },
  prepare(context, item, to) {
    const { resource } = item;
    const now = context.clock.iso();
    if (to !== 'action_required') delete resource.nextAction;
    if (to === 'action_required') {
      markAttempt(item, 'action_required', now);
      resource.nextAction = {
        type: 'otp',
        message: 'Enter the one-time password sent to the payer by SMS',
        data: {
          url: `${context.baseUrl}/__sim/payment-intents/${resource.id}/otp`,
          method: 'post',
          headers: { 'content-type': 'application/json' },
          data: { otp: '' },
        },
      };
    } else if (to === 'processing') {
      markAttempt(item, 'processing', now);
    } else if (to === 'successful') {
      markAttempt(item, 'successful', now);
    } else if (to === 'failed') {
      const failure = item.plan.failureCause ?? FORCED_FAILURE;
      resource.lastPaymentFailure = failure;
      const attempt = markAttempt(item, 'failed', now);
      if (attempt) attempt.failureCause = failure;
    }
  },
  enter(context, item, status) {
    const { timings } = context;
    followLink(context, item, status);
    if (status === 'payment_required') {
      context.schedule(item, timings.paymentProcessingAfterMs, 'payment_required', () =>
        context.transition(item, item.plan.otp ? 'action_required' : 'processing'),
      );
    } else if (status === 'action_required') {
      context.schedule(item, timings.otpExpiresAfterMs, 'action_required', () => {
        item.plan = { ...item.plan, final: 'failed', failureCause: OTP_EXPIRED };
        context.transition(item, 'failed');
      });
    } else if (status === 'processing') {
      const wait = item.plan.settleAfterMs ?? timings.paymentSettleAfterMs;
      context.schedule(item, wait, 'processing', () => context.transition(item, item.plan.final));
    } else if (status === 'successful') {
      const { mode, resource } = item;
      context.move(mode, 'collection', resource.currency, resource.amount, 'payment', resource.id);
    }
  },
};
