import { z } from 'zod';
import { amount, currency, isoDateTime, paymentLinkId } from './common.schema.ts';

export const paymentLinkStatus = z
  .enum(['active', 'expired', 'closed', 'completed'])
  .meta({ id: 'PaymentLinkStatus' });
export type PaymentLinkStatus = z.infer<typeof paymentLinkStatus>;

/** Fields of the payment link record are not shown beyond the `pl_` id shape. */
export const paymentLink = z.looseObject({ id: paymentLinkId }).meta({ id: 'PaymentLink' });
export type PaymentLink = z.infer<typeof paymentLink>;

/** Same record with its payment attempts; attempt fields not shown. */
export const paymentLinkWithAttempts = z
  .looseObject({ id: paymentLinkId })
  .meta({ id: 'PaymentLinkWithAttempts' });
export type PaymentLinkWithAttempts = z.infer<typeof paymentLinkWithAttempts>;

/** Creation body (fields not shown). Our choice: what a link needs to collect money. */
export const createPaymentLinkBody = z
  .looseObject({
    amount,
    currency,
    purchaseReference: z.string().min(1),
    customerReference: z.string().optional(),
    description: z.string().optional(),
    expiresAt: isoDateTime.optional(),
  })
  .meta({ id: 'PaymentLinkCreationRequest' });
export type CreatePaymentLinkBody = z.input<typeof createPaymentLinkBody>;

/** Card-on-file enrollment link body (fields not shown). Our choice. */
export const createSubscriptionLinkBody = z
  .looseObject({
    customerReference: z.string().min(1),
    purchaseReference: z.string().optional(),
    currency: currency.optional(),
    description: z.string().optional(),
    expiresAt: isoDateTime.optional(),
  })
  .meta({ id: 'SubscriptionLinkCreationRequest' });
export type CreateSubscriptionLinkBody = z.input<typeof createSubscriptionLinkBody>;

/** All bounds inclusive. */
export const listPaymentLinksQuery = z.object({
  fromCreatedAt: isoDateTime.optional(),
  toCreatedAt: isoDateTime.optional(),
  fromExpirationDate: isoDateTime.optional(),
  toExpirationDate: isoDateTime.optional(),
  status: paymentLinkStatus.optional(),
  purchaseReference: z.string().optional(),
});
