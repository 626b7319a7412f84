import { SimError } from '../engine/sim-error.ts';
import type { Mode, PaymentLinkResource } from '../engine/sim-resources.ts';
import type { SimItem } from '../engine/sim-store.ts';
import type { MachineContext } from '../machines/machine.ts';
import { MERCHANT_PROFILE } from '../reference-data.ts';

export interface PaymentLinkInput {
  amount?: number | undefined;
  currency?: string | undefined;
  purchaseReference?: string | undefined;
  customerReference?: string | undefined;
  description?: string | undefined;
  /** ISO 8601; must be in the future. */
  expirationDate?: string | undefined;
}

/**
 * Creates an active payment (or subscription) link. An active link with the same
 * purchaseReference: 409. An expiration date in the past: 400.
 */
export function createPaymentLink(
  context: MachineContext,
  mode: Mode,
  type: PaymentLinkResource['type'],
  input: PaymentLinkInput,
): SimItem<'payment_link'> {
  const nowMs = context.clock.nowMs();
  const expiresMs =
    input.expirationDate === undefined
      ? nowMs + context.timings.paymentLinkLifetimeMs
      : Date.parse(input.expirationDate);
  if (Number.isNaN(expiresMs) || expiresMs <= nowMs) {
    throw SimError.validation(['expirationDate must be a date in the future']);
  }
  if (type === 'payment' && input.amount === undefined) {
    throw SimError.validation(['amount must be a positive integer']);
  }
  const id = context.nextId('pl');
  const purchaseReference = input.purchaseReference ?? `purchase-${id.slice(3, 13)}`;
  const clash = context.store
    .withReference('payment_link', 'purchaseReference', purchaseReference)
    .find((link) => link.mode === mode && link.resource.status === 'active');
  if (clash) {
    throw SimError.conflict(
      `An active link already uses purchaseReference ${purchaseReference}: ${clash.key}`,
    );
  }
  const now = context.clock.iso();
  return context.create(
    'payment_link',
    mode,
    {
      id,
      merchantId: context.merchantId,
      type,
      status: 'active',
      amount: input.amount ?? null,
      currency: input.currency ?? MERCHANT_PROFILE.currency,
      purchaseReference,
      customerReference: input.customerReference ?? '',
      description: input.description ?? '',
      url: `${context.baseUrl}/__sim/checkout/${id}`,
      expirationDate: new Date(expiresMs).toISOString(),
      mode,
      createdAt: now,
      updatedAt: now,
      attempts: [],
    },
    { final: 'completed' },
    { purchaseReference },
  );
}
