import type { Transfer } from '../upstream/contract/index.ts';
import { applyBatch } from './apply-batch.ts';
import type { Executor } from '../db/index.ts';
import type { ApplyOutcome, Observation } from './ledger-types.ts';

/** Applies a fetched transfer: mirror, history, and its settlement (with fees) when successful (a batch of one). */
export async function applyTransfer(
  db: Executor,
  transfer: Transfer,
  observation: Observation,
): Promise<ApplyOutcome> {
  const [outcome] = await applyBatch(db, [
    { fetched: { kind: 'transfer', state: transfer }, observation },
  ]);
  return outcome!;
}
