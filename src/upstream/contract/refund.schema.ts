import { z } from 'zod';
import { amount, currency, isoDateTime, openRecord } from './common.schema.ts';

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
 * Refund request body (fields not shown). Our choice: the transfer to refund, why, and how;
 * the amount is always the original transfer's, so it is not sent.
 */
export const refundRequestBody = z
  .looseObject({
    transactionId: z.string().min(1),
    reason: z.string().optional(),
    paymentMethod: refundPaymentMethod.optional(),
    fallbackAllowed: z.boolean().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'RefundRequest' });
export type RefundRequestBody = z.input<typeof refundRequestBody>;

/** Payment refund request body (fields not shown). Our choice: optional partial amount and reason. */
export const paymentRefundRequestBody = z
  .looseObject({
    amount: amount.optional(),
    reason: z.string().optional(),
  })
  .meta({ id: 'PaymentRefundRequest' });
export type PaymentRefundRequestBody = z.input<typeof paymentRefundRequestBody>;

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
