import { createHmac } from 'node:crypto';
import { paymentOutcome } from '../sandbox-outcomes.ts';
import type { Mode, PaymentAttempt } from '../engine/sim-resources.ts';
import type { OutcomePlan, SimItem } from '../engine/sim-store.ts';
import type { MachineContext } from '../machines/machine.ts';

export interface PaymentIntentInput {
  amount: number;
  currency: string;
  purchaseReference?: string | undefined;
  customerReference?: string | undefined;
  /** The payer's number; its last four digits choose the sandbox outcome. */
  payerNumber?: string | undefined;
  provider?: string | undefined;
  method?: string | undefined;
  overrideBusinessName?: string | undefined;
  subMerchantId?: string | undefined;
  paymentLinkId?: string | undefined;
}

const DEFAULT_PAYER = '+221770000000';

function base64url(value: string): string {
  return Buffer.from(value).toString('base64url');
}

/** A JWT-shaped token for client-side payment attempts (HS256 with a simulator-only key). */
function intentToken(intentId: string, merchantId: string, issuedAtMs: number): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64url(
    JSON.stringify({ sub: intentId, mid: merchantId, iat: Math.floor(issuedAtMs / 1000) }),
  );
  const signature = createHmac('sha256', 'paysync-sim')
    .update(`${header}.${payload}`)
    .digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/** A payment attempt for `input`, in the status the intent enters next. */
export function newAttempt(
  context: MachineContext,
  input: Pick<PaymentIntentInput, 'amount' | 'currency' | 'payerNumber' | 'provider' | 'method'>,
): PaymentAttempt {
  const at = context.clock.iso();
  return {
    id: context.nextId('pay'),
    status: 'processing',
    amount: input.amount,
    currency: input.currency,
    method: input.method ?? 'mobile_money',
    provider: input.provider ?? 'orange_money',
    msisdn: input.payerNumber ?? DEFAULT_PAYER,
    createdAt: at,
    updatedAt: at,
  };
}

/** The sandbox plan for a payer number. */
export function planForPayer(
  context: MachineContext,
  payerNumber: string | undefined,
): OutcomePlan {
  const { timings } = context;
  return paymentOutcome(
    payerNumber ?? DEFAULT_PAYER,
    timings.paymentSettleAfterMs,
    timings.longPendingMs,
  );
}

/** Creates a payment intent in payment_required with its first attempt under way. */
export function createPaymentIntent(
  context: MachineContext,
  mode: Mode,
  input: PaymentIntentInput,
): SimItem<'payment_intent'> {
  const id = context.nextId('pi');
  const now = context.clock.iso();
  const plan = planForPayer(context, input.payerNumber);
  if (input.paymentLinkId !== undefined) plan.paymentLinkId = input.paymentLinkId;
  const purchaseReference = input.purchaseReference ?? `purchase-${id.slice(3, 13)}`;
  const customerReference = input.customerReference ?? `customer-${id.slice(3, 11)}`;
  const item = context.create(
    'payment_intent',
    mode,
    {
      id,
      merchantId: context.merchantId,
      createdAt: now,
      updatedAt: now,
      token: intentToken(id, context.merchantId, context.clock.nowMs()),
      purchaseReference,
      customerReference,
      status: 'payment_required',
      amount: input.amount,
      currency: input.currency,
      payments: [newAttempt(context, input)],
      mode,
      ...(input.overrideBusinessName === undefined
        ? {}
        : { overrideBusinessName: input.overrideBusinessName }),
      ...(input.subMerchantId === undefined ? {} : { subMerchantId: input.subMerchantId }),
    },
    plan,
    { purchaseReference, customerReference },
  );
  return item;
}
