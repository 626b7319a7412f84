import type { PaymentRefund } from '../upstream/contract/index.ts';
import { applyBatch } from './apply-batch.ts';
import type { Executor } from '../db/index.ts';
import type { ApplyOutcome, Observation } from './ledger-types.ts';

/**
 * Applies a fetched payment refund (`GET /payments-refund/{id}/status`), as a batch of one. Parse the open
 * response with `paymentRefundState` first; a body that fails it is a contract error.
 */
export async function applyPaymentRefund(
  db: Executor,
  paymentRefund: PaymentRefund,
  observation: Observation,
): Promise<ApplyOutcome> {
  const [outcome] = await applyBatch(db, [
    { fetched: { kind: 'payment_refund', state: paymentRefund }, observation },
  ]);
  return outcome!;
}
