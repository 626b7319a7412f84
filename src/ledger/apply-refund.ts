import type { Refund } from '../upstream/contract/index.ts';
import { applyObservation } from './apply-observation.ts';
import type { Executor } from '../db/index.ts';
import type { ApplyOutcome, Observation } from './ledger-types.ts';
import { transferRefundColumns } from './refund.repository.ts';
import { transferRefundSettlementLines } from './settlement-lines.ts';
import { findTransfer } from './transfer.repository.ts';
import { utcMillis } from './utc-millis.ts';

/** Applies a fetched refund of a transfer (`GET /refunds/{id}`). */
export function applyRefund(
  db: Executor,
  refund: Refund,
  observation: Observation,
): Promise<ApplyOutcome> {
  const id = String(refund.id);
  return applyObservation(
    db,
    {
      kind: 'refund',
      id,
      upstreamStatus: refund.status,
      updatedAt: utcMillis(refund.updatedAt, 'updatedAt'),
      mirror: { table: 'refunds', kind: 'refund', id },
      columns: (status, seen) => transferRefundColumns(refund, status, seen),
      settlementLines: async () => {
        // The money goes back to the account the transfer was paid from.
        const transfer = await findTransfer(db, refund.transactionId);
        return transferRefundSettlementLines(refund, transfer?.isIrt ?? false);
      },
      description: `refund ${id} of transfer ${refund.transactionId} ${refund.status}`,
    },
    observation,
  );
}
