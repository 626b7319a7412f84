import type { Insertable } from 'kysely';
import type { PaymentRefund, Refund } from '../upstream/contract/index.ts';
import type { Executor } from '../db/index.ts';
import type { Observation } from './ledger-types.ts';
import type { RefundRecord } from './mirror-records.ts';
import { mirrorRecordBase } from './mirror-records.ts';
import type { RefundKind } from '../resources/index.ts';
import type { RefundRow, RefundTable } from './refund.table.ts';
import { utcMillis } from './utc-millis.ts';

export function transferRefundColumns(
  refund: Refund,
  status: string,
  observation: Observation,
): Insertable<RefundTable> {
  return {
    kind: 'refund',
    id: String(refund.id),
    status,
    upstream_status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    original_id: refund.transactionId,
    mode: null,
    reason: refund.reason ?? null,
    payment_method: refund.paymentMethod ?? null,
    failure_code: null,
    failure_message: null,
    created_at: utcMillis(refund.createdAt, 'createdAt'),
    updated_at: utcMillis(refund.updatedAt, 'updatedAt'),
    raw: JSON.stringify(refund),
    first_seen_at: observation.observedAt,
    last_synced_at: observation.observedAt,
  };
}

export function paymentRefundColumns(
  refund: PaymentRefund,
  status: string,
  observation: Observation,
): Insertable<RefundTable> {
  return {
    kind: 'payment_refund',
    id: String(refund.id),
    status,
    upstream_status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    original_id: refund.paymentIntentId ?? null,
    mode: refund.mode ?? null,
    reason: refund.reason ?? null,
    payment_method: null,
    failure_code: refund.failureCause?.code ?? null,
    failure_message: refund.failureCause?.message ?? null,
    created_at: refund.createdAt ? utcMillis(refund.createdAt, 'createdAt') : null,
    updated_at: utcMillis(refund.updatedAt, 'updatedAt'),
    raw: JSON.stringify(refund),
    first_seen_at: observation.observedAt,
    last_synced_at: observation.observedAt,
  };
}

export async function findRefund(
  db: Executor,
  kind: RefundKind,
  id: string,
): Promise<RefundRecord | undefined> {
  const row = await db
    .selectFrom('refunds')
    .selectAll()
    .where('kind', '=', kind)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toRefundRecord(row);
}

/**
 * Every mirrored refund of `originalId` (a `tr_…` for `refund`, a `pi_…` for `payment_refund`),
 * oldest first: what `paysync show` lists under the item it refunds.
 */
export async function refundsOf(
  db: Executor,
  kind: RefundKind,
  originalId: string,
): Promise<RefundRecord[]> {
  // By original_id alone: with `kind` in the WHERE as well, SQLite picks an index that starts
  // with kind and reads every refund of that kind. An item has a few refunds; sorted here.
  const rows = await db
    .selectFrom('refunds')
    .selectAll()
    .where('original_id', '=', originalId)
    .execute();
  return rows
    .filter((row) => row.kind === kind)
    .sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.id.localeCompare(b.id))
    .map(toRefundRecord);
}

/** Of `ids`, those the mirror holds as refunds of `kind`. Keep `ids` to a few hundred. */
export async function knownRefundIds(
  db: Executor,
  kind: RefundKind,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('refunds')
    .select('id')
    .where('kind', '=', kind)
    .where('id', 'in', [...ids])
    .execute();
  return rows.map((row) => row.id);
}

/** The id of every mirrored refund of `kind`. */
export async function refundIdsOf(db: Executor, kind: RefundKind): Promise<string[]> {
  const rows = await db.selectFrom('refunds').select('id').where('kind', '=', kind).execute();
  return rows.map((row) => row.id);
}

export function toRefundRecord(row: RefundRow): RefundRecord {
  return {
    kind: row.kind,
    ...mirrorRecordBase(row),
    originalId: row.original_id,
    mode: row.mode,
    reason: row.reason,
    paymentMethod: row.payment_method,
  };
}
