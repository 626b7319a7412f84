import type { Refund } from '../upstream/contract/index.ts';
import { applyBatch } from './apply-batch.ts';
import type { Executor } from '../db/index.ts';
import type { ApplyOutcome, Observation } from './ledger-types.ts';

/** Applies a fetched refund of a transfer (`GET /refunds/{id}`), as a batch of one. */
export async function applyRefund(
  db: Executor,
  refund: Refund,
  observation: Observation,
): Promise<ApplyOutcome> {
  const [outcome] = await applyBatch(db, [
    { fetched: { kind: 'refund', state: refund }, observation },
  ]);
  return outcome!;
}
