import type { PaymentIntent } from '../upstream/contract/index.ts';
import { applyBatch } from './apply-batch.ts';
import type { Executor } from '../db/index.ts';
import type { ApplyOutcome, Observation } from './ledger-types.ts';

/** Applies a fetched payment intent: mirror, history, and its settlement when successful (a batch of one). */
export async function applyPaymentIntent(
  db: Executor,
  intent: PaymentIntent,
  observation: Observation,
): Promise<ApplyOutcome> {
  const [outcome] = await applyBatch(db, [
    { fetched: { kind: 'payment_intent', state: intent }, observation },
  ]);
  return outcome!;
}
