import { z } from 'zod';
import {
  amount,
  currency,
  failureCause,
  isoDateTime,
  mode,
  paymentIntentId,
} from './common.schema.ts';
import { listWindowQuery } from './list-window.schema.ts';

export const paymentIntentStatus = z
  .enum(['action_required', 'canceled', 'failed', 'payment_required', 'processing', 'successful'])
  .meta({ id: 'PaymentIntentStatus' });
export type PaymentIntentStatus = z.infer<typeof paymentIntentStatus>;

/** What the customer must do next: redirection, ussd or otp (the list is not closed). */
export const nextAction = z
  .looseObject({
    // Present in retrieval responses, absent in some create/list responses.
    type: z.string().nullish(),
    message: z.string().nullish(),
    data: z
      .looseObject({
        url: z.string().nullish(),
        urls: z.string().nullish(),
        method: z
          .string()
          .regex(/^[a-z]+$/, 'must be a lower-case HTTP verb')
          .nullish(),
        headers: z.record(z.string(), z.unknown()).nullish(),
        data: z.record(z.string(), z.unknown()).nullish(),
      })
      .nullish(),
  })
  .meta({ id: 'NextAction' });
export type NextAction = z.infer<typeof nextAction>;

export const paymentFailureCause = failureCause;
export type PaymentFailureCause = z.infer<typeof paymentFailureCause>;

export const paymentIntent = z
  .looseObject({
    id: paymentIntentId,
    merchantId: z.string(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    token: z.string(),
    purchaseReference: z.string(),
    customerReference: z.string(),
    status: paymentIntentStatus,
    amount,
    currency,
    // "any" with an element shape not shown: a list of opaque payment attempts.
    payments: z.array(z.unknown()),
    mode,
    nextAction: nextAction.nullish(),
    lastPaymentFailure: paymentFailureCause.nullish(),
    overrideBusinessName: z.string().nullish(),
    subMerchantId: z.string().nullish(),
  })
  .meta({ id: 'PaymentIntent' });
export type PaymentIntent = z.infer<typeof paymentIntent>;

/**
 * Delegated payment body: the document says only "JSON object body". These are the fields a
 * payment intent needs; anything else passes through to the service.
 */
export const delegatedPaymentBody = z
  .looseObject({
    amount,
    currency,
    purchaseReference: z.string().min(1),
    customerReference: z.string().min(1),
    provider: z.string().optional(),
    country: z.string().optional(),
    phoneNumber: z.string().optional(),
    otp: z.string().optional(),
    subMerchantId: z.string().optional(),
    overrideBusinessName: z.string().optional(),
  })
  .meta({ id: 'DelegatedPaymentRequest' });
export type DelegatedPaymentBody = z.input<typeof delegatedPaymentBody>;

export const listPaymentIntentsQuery = listWindowQuery.extend({
  customerReference: z.string().optional(),
  purchaseReference: z.string().optional(),
});
