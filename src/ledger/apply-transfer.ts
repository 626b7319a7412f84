import type { Transfer } from '../upstream/contract/index.ts';
import { applyObservation } from './apply-observation.ts';
import type { Executor } from '../db/index.ts';
import type { ApplyOutcome, Observation } from './ledger-types.ts';
import { transferSettlementLines } from './settlement-lines.ts';
import { transferColumns } from './transfer.repository.ts';
import { utcMillis } from './utc-millis.ts';

/** Applies a fetched transfer: mirror, history, and its settlement (with fees) when successful. */
export function applyTransfer(
  db: Executor,
  transfer: Transfer,
  observation: Observation,
): Promise<ApplyOutcome> {
  return applyObservation(
    db,
    {
      kind: 'transfer',
      id: transfer.id,
      upstreamStatus: transfer.status,
      updatedAt: utcMillis(transfer.updatedAt, 'updatedAt'),
      mirror: { table: 'transfers', id: transfer.id },
      columns: (status, seen) => transferColumns(transfer, status, seen),
      settlementLines: async () => transferSettlementLines(transfer),
      description: `transfer ${transfer.id} (${transfer.reference}) ${transfer.status}${transfer.isIrt ? ', IRT' : ''}`,
    },
    observation,
  );
}
