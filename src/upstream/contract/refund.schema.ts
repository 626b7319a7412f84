import { z } from 'zod';
import { amount, currency, isoDateTime, openRecord } from './common.schema.ts';
import { requestBody } from './request-checks.ts';

export const refundStatus = z
  .enum(['created', 'pending', 'pending_manual', 'successful', 'failed'])
  .meta({ id: 'RefundStatus' });
export type RefundStatus = z.infer<typeof refundStatus>;

export const refundPaymentMethod = z
  .enum(['mobile_money', 'bank_transfer'])
  .meta({ id: 'RefundPaymentMethod' });

/** A refund as returned by GET /refunds/{id}. Note the numeric id. */
export const refund = z
  .looseObject({
    id: z.number().int().nonnegative(),
    status: refundStatus,
    transactionId: z.string(),
    amount,
    currency,
    reason: z.string().nullish(),
    paymentMethod: refundPaymentMethod.nullish(),
    fallbackAllowed: z.boolean().nullish(),
    fallbackUsed: z.boolean().nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
    supportTicketId: z.string().nullish(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'Refund' });
export type Refund = z.infer<typeof refund>;

/**
 * Refund request body ("Fields of the refund request body: not shown"). The client requires
 * nothing. paysync's reading, taken from the Refund record: the transfer to refund, why, and
 * how; the amount is always the original transfer's, so it is not sent.
 */
export const refundRequestBody = requestBody('RefundRequest', {
  transactionId: {
    schema: z.string().min(1),
    shown: 'nothing',
    required: 'paysync',
    why: 'a non-empty string: Refund.transactionId, the transfer being refunded',
  },
  reason: { schema: z.string(), shown: 'nothing', why: 'a string, as Refund.reason' },
  paymentMethod: {
    schema: refundPaymentMethod,
    shown: 'nothing',
    why: 'mobile_money or bank_transfer, as Refund.paymentMethod',
  },
  fallbackAllowed: {
    schema: z.boolean(),
    shown: 'nothing',
    why: 'a boolean, as Refund.fallbackAllowed',
  },
  metadata: {
    schema: z.record(z.string(), z.unknown()),
    shown: 'nothing',
    why: 'an object, as Refund.metadata',
  },
});
export type RefundRequestBody = z.input<typeof refundRequestBody.documented>;

/**
 * Payment refund request body ("not shown"). paysync's reading: an optional partial amount,
 * which follows the Conventions when sent, and a reason.
 */
export const paymentRefundRequestBody = requestBody('PaymentRefundRequest', {
  amount: {
    schema: amount,
    shown: 'all',
    why: 'Conventions: a positive integer in the smallest currency unit; a partial refund',
  },
  reason: { schema: z.string(), shown: 'nothing', why: 'a string' },
});
export type PaymentRefundRequestBody = z.input<typeof paymentRefundRequestBody.documented>;

/** Responses whose fields are not shown: open. */
export const refundCreationResponse = openRecord.meta({ id: 'RefundCreationResponse' });
export type RefundCreationResponse = z.infer<typeof refundCreationResponse>;

export const paymentRefundResponse = openRecord.meta({ id: 'PaymentRefundResponse' });
export type PaymentRefundResponse = z.infer<typeof paymentRefundResponse>;

export const paymentRefundStatusResponse = openRecord.meta({ id: 'PaymentRefundStatusResponse' });
export type PaymentRefundStatusResponse = z.infer<typeof paymentRefundStatusResponse>;

/** GET /refunds: body not shown, may be a list or an envelope. */
export const refundListResponse = z
  .union([z.array(openRecord), openRecord])
  .meta({ id: 'RefundListResponse' });
export type RefundListResponse = z.infer<typeof refundListResponse>;
