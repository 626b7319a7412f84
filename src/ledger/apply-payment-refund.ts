import type { PaymentRefund } from '../upstream/contract/index.ts';
import { applyObservation } from './apply-observation.ts';
import type { Executor } from '../db/index.ts';
import type { ApplyOutcome, Observation } from './ledger-types.ts';
import { paymentRefundColumns } from './refund.repository.ts';
import { paymentRefundSettlementLines } from './settlement-lines.ts';
import { utcMillis } from './utc-millis.ts';

/**
 * Applies a fetched payment refund (`GET /payments-refund/{id}/status`). Parse the open
 * response with `paymentRefundState` first; a body that fails it is a contract error.
 */
export function applyPaymentRefund(
  db: Executor,
  paymentRefund: PaymentRefund,
  observation: Observation,
): Promise<ApplyOutcome> {
  const id = String(paymentRefund.id);
  return applyObservation(
    db,
    {
      kind: 'payment_refund',
      id,
      upstreamStatus: paymentRefund.status,
      updatedAt: utcMillis(paymentRefund.updatedAt, 'updatedAt'),
      mirror: { table: 'refunds', kind: 'payment_refund', id },
      columns: (status, seen) => paymentRefundColumns(paymentRefund, status, seen),
      settlementLines: async () => paymentRefundSettlementLines(paymentRefund),
      description: `payment refund ${id}${paymentRefund.paymentIntentId ? ` of ${paymentRefund.paymentIntentId}` : ''} ${paymentRefund.status}`,
    },
    observation,
  );
}
