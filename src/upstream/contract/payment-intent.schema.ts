import { z } from 'zod';
import {
  amount,
  currency,
  failureCause,
  isoDateTime,
  mode,
  paymentIntentId,
} from './common.schema.ts';
import { collectionFields } from './collection-fields.ts';
import { listWindowFields } from './list-window.schema.ts';
import { requestBody, requestQuery, shownField } from './request-checks.ts';

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
 * Delegated payment body. The document says only "JSON object body" and "Fields of the
 * delegated payment body: not shown": the client checks that it is an object and that
 * `amount` and `currency` follow the Conventions when sent. The rest is paysync's reading of
 * what a payment intent needs; anything else passes through to the service.
 */
export const delegatedPaymentBody = requestBody('DelegatedPaymentRequest', {
  ...collectionFields({
    amount: 'PaymentIntent.amount is required',
    currency: 'PaymentIntent.currency is required',
    purchaseReference: 'PaymentIntent.purchaseReference is client-provided and required',
  }),
  customerReference: {
    schema: z.string().min(1),
    shown: 'nothing',
    required: 'paysync',
    why: 'a non-empty string: PaymentIntent.customerReference is client-provided and required',
  },
  provider: { schema: z.string(), shown: 'nothing', why: "a string: the payer's provider" },
  country: { schema: z.string(), shown: 'nothing', why: "a string: the payer's country" },
  phoneNumber: { schema: z.string(), shown: 'nothing', why: "a string: the payer's number" },
  otp: { schema: z.string(), shown: 'nothing', why: 'a string: the code of an otp next action' },
  subMerchantId: { schema: z.string(), shown: 'nothing', why: 'a string, as in PaymentIntent' },
  overrideBusinessName: {
    schema: z.string(),
    shown: 'nothing',
    why: 'a string, as in PaymentIntent',
  },
});
export type DelegatedPaymentBody = z.input<typeof delegatedPaymentBody.documented>;

/** Every check here is shown by the document, except the list window's (see there). */
export const listPaymentIntentsQuery = requestQuery({
  ...listWindowFields,
  customerReference: shownField(z.string(), 'query customerReference (optional)'),
  purchaseReference: shownField(z.string(), 'query purchaseReference (optional)'),
});
