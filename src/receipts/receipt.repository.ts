import { sql } from 'kysely';
import { dialectOfDb } from '../db/index.ts';
import { finalItemsWithout, type Executor, type FinalItem } from '../ledger/index.ts';
import type { ReceiptKind } from './receipt-kind.ts';
import type { ReceiptRow } from './receipt.table.ts';

async function hasReceiptsTable(db: Executor): Promise<boolean> {
  // The receipts table comes with its own migration: read it only when present.
  if (dialectOfDb(db) === 'postgres') {
    const { rows } = await sql<{
      found: string | null;
    }>`select to_regclass('receipts')::text as found`.execute(db);
    return rows[0]?.found != null;
  }
  const { rows } = await sql<{
    name: string;
  }>`select name from sqlite_master where type = 'table' and name = 'receipts'`.execute(db);
  return rows.length > 0;
}

/**
 * An SQL expression for the sha256 of the newest archived receipt of the resource of the
 * journal aliased `journal` in the caller's query (null when there is none), or undefined when
 * the receipts table does not exist. The export reads it beside each journal in one statement.
 */
export async function latestReceiptColumn(
  db: Executor,
  journal: string,
): Promise<string | undefined> {
  if (!/^[a-z_]+$/.test(journal)) throw new Error(`not an SQL alias: ${journal}`);
  if (!(await hasReceiptsTable(db))) return undefined;
  return `(select r.sha256 from receipts r where r.resource_kind = ${journal}.resource_kind and r.resource_id = ${journal}.resource_id order by r.fetched_at desc, r.id desc limit 1)`;
}

/** Every archived version of one resource's receipt, oldest first. */
export async function receiptsFor(
  db: Executor,
  resourceKind: ReceiptKind,
  resourceId: string,
): Promise<ReceiptRow[]> {
  const rows = await db
    .selectFrom('receipts')
    .selectAll()
    .where('resource_kind', '=', resourceKind)
    .where('resource_id', '=', resourceId)
    .orderBy('fetched_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, id: Number(row.id), size: Number(row.size) }));
}

/** True when at least one receipt of the resource is archived. */
export async function hasReceipt(
  db: Executor,
  resourceKind: ReceiptKind,
  resourceId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('receipts')
    .select('id')
    .where('resource_kind', '=', resourceKind)
    .where('resource_id', '=', resourceId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface SettledItem extends FinalItem {
  readonly kind: ReceiptKind;
}

/**
 * Payment intents and transfers that are successful or failed and have no archived receipt,
 * oldest first; `since` limits them to those last changed at or after that time. The ledger reads
 * its mirror and this supplies the receipts' half of the anti-join: one statement per kind.
 */
export async function settledWithoutReceipt(
  db: Executor,
  options: { since?: string; limit?: number } = {},
): Promise<SettledItem[]> {
  return finalItemsWithout(
    db,
    (kind, mirrorId) =>
      db
        .selectFrom('receipts')
        .select('receipts.id')
        .where('receipts.resource_kind', '=', kind)
        .where('receipts.resource_id', '=', mirrorId),
    options,
  );
}
