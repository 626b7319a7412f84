import type { Insertable } from 'kysely';
import type { Transfer } from '../upstream/contract/index.ts';
import type { Executor } from '../db/index.ts';
import type { Observation } from './ledger-types.ts';
import type { TransferFeeRecord, TransferRecord } from './mirror-records.ts';
import { mirrorRecordBase } from './mirror-records.ts';
import type { TransferRow, TransferTable } from './transfer.table.ts';
import { utcMillis } from './utc-millis.ts';

export function transferColumns(
  transfer: Transfer,
  status: string,
  observation: Observation,
): Insertable<TransferTable> {
  const fees: TransferFeeRecord[] = transfer.fees.map((fee) => ({
    id: fee.id,
    amount: fee.amount,
    currency: fee.currency,
    label: fee.label ?? null,
  }));
  return {
    id: transfer.id,
    merchant_id: transfer.merchantId,
    reference: transfer.reference,
    status,
    upstream_status: transfer.status,
    amount: transfer.amount,
    currency: transfer.currency,
    mode: transfer.mode,
    is_irt: transfer.isIrt ? 1 : 0,
    is_delegated: transfer.isDelegated ? 1 : 0,
    fees: JSON.stringify(fees),
    destination: JSON.stringify(transfer.destination),
    description: transfer.description,
    provider_reference: transfer.providerReference,
    failure_code: transfer.failureCause?.code ?? null,
    failure_message: transfer.failureCause?.message ?? null,
    created_at: utcMillis(transfer.createdAt, 'createdAt'),
    updated_at: utcMillis(transfer.updatedAt, 'updatedAt'),
    raw: JSON.stringify(transfer),
    first_seen_at: observation.observedAt,
    last_synced_at: observation.observedAt,
  };
}

export async function findTransfer(db: Executor, id: string): Promise<TransferRecord | undefined> {
  const row = await db.selectFrom('transfers').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toTransferRecord(row);
}

/**
 * The reference of a mirrored transfer. The service's transfer list filters by reference,
 * not by id, so a sync that only has `tr_…` asks the mirror first.
 */
export async function transferReferenceOf(db: Executor, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('transfers')
    .select('reference')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.reference;
}

/** The id of the transfer that most recently became `failed`, if any did. */
export async function latestFailedTransferId(db: Executor): Promise<string | undefined> {
  const row = await db
    .selectFrom('transfers')
    .select('id')
    .where('status', '=', 'failed')
    .orderBy('updated_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

export function toTransferRecord(row: TransferRow): TransferRecord {
  return {
    kind: 'transfer',
    ...mirrorRecordBase(row),
    merchantId: row.merchant_id,
    reference: row.reference,
    mode: row.mode,
    isIrt: row.is_irt === 1,
    isDelegated: row.is_delegated === 1,
    fees: JSON.parse(row.fees) as TransferFeeRecord[],
    destination: JSON.parse(row.destination) as Record<string, unknown>,
    description: row.description,
    providerReference: row.provider_reference,
  };
}
