import { z } from 'zod';
import { amount, currency, failureCause, isoDateTime } from './common.schema.ts';

/**
 * The payment-refund status response is "not shown" in the interface document, so the
 * contract leaves it open. The ledger needs these fields to book it; they are what the
 * simulator returns (docs/simulator.md). A body without them is a contract error for the job
 * to record; anything else passes through and is kept in the raw JSON.
 */
export const paymentRefundState = z.looseObject({
  id: z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]),
  status: z.enum(['created', 'pending', 'pending_manual', 'successful', 'failed']),
  amount,
  currency,
  updatedAt: isoDateTime,
  createdAt: isoDateTime.nullish(),
  paymentIntentId: z.string().nullish(),
  reason: z.string().nullish(),
  mode: z.string().nullish(),
  failureCause: failureCause.nullish(),
});

export type PaymentRefund = z.infer<typeof paymentRefundState>;
