import { SimError } from '../engine/sim-error.ts';
import type { SimItem } from '../engine/sim-store.ts';
import type { MachineContext } from '../machines/machine.ts';
import { newAttempt, planForPayer } from './create-payment-intent.ts';

/**
 * A new payment attempt on a failed intent (or a first one on an intent still waiting for
 * payment): the payer number decides the outcome again, and the intent goes back to
 * processing (or action_required for an OTP number). Anything else: 409.
 */
export function startPaymentAttempt(
  context: MachineContext,
  intent: SimItem<'payment_intent'>,
  input: {
    payerNumber?: string | undefined;
    provider?: string | undefined;
    otp?: string | undefined;
  },
  otpIsValid: (otp: string) => boolean,
): SimItem<'payment_intent'> {
  const { status } = intent.resource;
  if (status !== 'failed' && status !== 'payment_required') {
    throw SimError.conflict(
      `Payment intent ${intent.key} is ${status}; a new attempt needs a failed intent`,
    );
  }
  const plan = {
    ...planForPayer(context, input.payerNumber),
    paymentLinkId: intent.plan.paymentLinkId,
  };
  if (plan.otp && input.otp !== undefined) applyOtp(plan, input.otp, otpIsValid);
  intent.plan = plan;
  intent.resource.payments.push(
    newAttempt(context, {
      ...intent.resource,
      payerNumber: input.payerNumber,
      provider: input.provider,
    }),
  );
  context.transition(intent, plan.otp ? 'action_required' : 'processing');
  return intent;
}

/** An OTP sent up front: the right one skips action_required, a wrong one fails the attempt. */
export function applyOtp(
  plan: {
    otp?: boolean;
    final: string;
    failureCause?: { code: string; message: string; params: string[] };
  },
  otp: string,
  otpIsValid: (otp: string) => boolean,
): void {
  plan.otp = false;
  if (!otpIsValid(otp)) {
    plan.final = 'failed';
    plan.failureCause = {
      code: 'wrong_otp',
      message: 'The one-time password is wrong',
      params: [],
    };
  }
}
