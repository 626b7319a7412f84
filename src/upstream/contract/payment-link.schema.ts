import { z } from 'zod';
import { currency, isoDateTime, paymentLinkId } from './common.schema.ts';
import { collectionFields } from './collection-fields.ts';
import { requestBody } from './request-checks.ts';

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

/**
 * Payment link creation body. The document shows none of its fields ("Fields of the payment
 * link creation body: not shown"), so the client requires nothing. The fields are paysync's
 * choice: what a link needs to collect money. `amount`, `currency` and datetimes still follow
 * the document's Conventions when sent.
 */
export const createPaymentLinkBody = requestBody('PaymentLinkCreationRequest', {
  ...collectionFields({
    amount: 'a link collects a set amount',
    currency: 'the amount needs its currency',
    purchaseReference: 'the list filter purchaseReference is documented for idempotency lookups',
  }),
  customerReference: { schema: z.string(), shown: 'nothing', why: 'a string' },
  description: { schema: z.string(), shown: 'nothing', why: 'a string' },
  expiresAt: {
    schema: isoDateTime,
    shown: 'all',
    why: 'Conventions: an ISO 8601 UTC datetime',
  },
});
export type CreatePaymentLinkBody = z.input<typeof createPaymentLinkBody.documented>;

/**
 * Card-on-file enrollment link body. Fields not shown: the client requires nothing; paysync's
 * reading requires the customer whose card is enrolled.
 */
export const createSubscriptionLinkBody = requestBody('SubscriptionLinkCreationRequest', {
  customerReference: {
    schema: z.string().min(1),
    shown: 'nothing',
    required: 'paysync',
    why: 'a non-empty string: the customer whose card is enrolled',
  },
  purchaseReference: { schema: z.string(), shown: 'nothing', why: 'a string' },
  currency: { schema: currency, shown: 'all', why: 'Conventions: ISO 4217' },
  description: { schema: z.string(), shown: 'nothing', why: 'a string' },
  expiresAt: { schema: isoDateTime, shown: 'all', why: 'Conventions: an ISO 8601 UTC datetime' },
});
export type CreateSubscriptionLinkBody = z.input<typeof createSubscriptionLinkBody.documented>;

/** All bounds inclusive. Every check here is shown by the document. */
export const listPaymentLinksQuery = z.object({
  fromCreatedAt: isoDateTime.optional(),
  toCreatedAt: isoDateTime.optional(),
  fromExpirationDate: isoDateTime.optional(),
  toExpirationDate: isoDateTime.optional(),
  status: paymentLinkStatus.optional(),
  purchaseReference: z.string().optional(),
});
