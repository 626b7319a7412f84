import type { FailureCause } from './engine/sim-resources.ts';
import type { OutcomePlan } from './engine/sim-store.ts';

/** The one-time password that completes an OTP payment in the sandbox. */
export const SANDBOX_OTP = '123456';

function cause(code: string, message: string): FailureCause {
  return { code, message, params: [] };
}

/**
 * Transfer outcomes by the last four digits of the recipient number (`destination.number`,
 * or `destination.msisdn` in a delegated IRT body). Anything else succeeds.
 */
export const TRANSFER_OUTCOMES: Readonly<
  Record<string, Omit<OutcomePlan, 'settleAfterMs'> & { longPending?: boolean }>
> = {
  '9901': {
    final: 'failed',
    failureCause: cause('recipient_not_found', 'The recipient account does not exist'),
  },
  '9902': {
    final: 'failed',
    failureCause: cause('recipient_limit_exceeded', 'The recipient cannot receive this amount'),
  },
  '9903': {
    final: 'failed',
    failureCause: cause('provider_unavailable', 'The provider did not answer'),
  },
  '9904': {
    final: 'failed',
    failureCause: cause('invalid_sandbox_msisdn', 'This number is not a valid sandbox number'),
  },
  '9909': { final: 'successful', longPending: true },
  /** Transfers to this number are refunded into pending_manual. */
  '9905': { final: 'successful', refundOutcome: 'pending_manual' },
  /** Transfers to this number are refunded into failed. */
  '9906': { final: 'successful', refundOutcome: 'failed' },
};

/** Payment outcomes by the last four digits of the payer number. Anything else succeeds. */
export const PAYMENT_OUTCOMES: Readonly<
  Record<string, Omit<OutcomePlan, 'settleAfterMs'> & { longPending?: boolean }>
> = {
  '0001': { final: 'successful', otp: true },
  '0002': {
    final: 'failed',
    failureCause: cause('insufficient_funds', 'The payer has insufficient funds'),
  },
  '0003': {
    final: 'failed',
    failureCause: cause('transaction_declined', 'The payer declined the payment'),
  },
  '0009': { final: 'successful', longPending: true },
  /** Payments from this number are refunded into failed. */
  '0006': { final: 'successful', refundOutcome: 'failed' },
};

/** The failure cause used when a transfer cannot be paid from the merchant's account. */
export const INSUFFICIENT_BALANCE = cause(
  'insufficient_balance',
  'The transfer account balance does not cover the amount and fees',
);
export const OTP_EXPIRED = cause('otp_expired', 'The one-time password was not entered in time');
export const WRONG_OTP = cause('wrong_otp', 'The one-time password is wrong');
export const FORCED_FAILURE = cause(
  'sandbox_forced_failure',
  'Failed through the simulator control surface',
);
export const REFUND_REJECTED = cause('refund_rejected', 'The provider rejected the refund');

function lastFour(value: string): string {
  return value.replace(/\D/g, '').slice(-4);
}

/** The plan for a transfer to `recipientNumber`, with the settle delay already chosen. */
export function transferOutcome(
  recipientNumber: string,
  settleAfterMs: number,
  longPendingMs: number,
): OutcomePlan {
  const entry = TRANSFER_OUTCOMES[lastFour(recipientNumber)];
  if (!entry) return { final: 'successful', settleAfterMs };
  const { longPending, ...plan } = entry;
  return { ...plan, settleAfterMs: longPending ? longPendingMs : settleAfterMs };
}

/** The plan for a payment from `payerNumber`, with the settle delay already chosen. */
export function paymentOutcome(
  payerNumber: string,
  settleAfterMs: number,
  longPendingMs: number,
): OutcomePlan {
  const entry = PAYMENT_OUTCOMES[lastFour(payerNumber)];
  if (!entry) return { final: 'successful', settleAfterMs };
  const { longPending, ...plan } = entry;
  return { ...plan, settleAfterMs: longPending ? longPendingMs : settleAfterMs };
}
