import type { Insertable } from 'kysely';
import type { Executor } from '../db/index.ts';
import { runBulk } from '../db/index.ts';
import { laterSyncTime } from './latest-time.ts';
import type { PaymentIntentTable } from './payment-intent.table.ts';
import type { RefundTable } from './refund.table.ts';
import type { TransferTable } from './transfer.table.ts';

/** The row each mirror table takes, as built by `paymentIntentColumns` and its siblings. */
export interface MirrorColumns {
  payment_intents: Insertable<PaymentIntentTable>;
  transfers: Insertable<TransferTable>;
  refunds: Insertable<RefundTable>;
}

export type MirrorTable = keyof MirrorColumns;

/**
 * The schema the one writer is driven by: the columns that identify a row of each mirror
 * table (its conflict target). Every other column is the service's state, rewritten on a newer
 * sighting, except `first_seen_at` (kept) and `last_synced_at` (only moves forward).
 */
export const MIRROR_KEYS = {
  payment_intents: ['id'],
  transfers: ['id'],
  refunds: ['kind', 'id'],
} as const satisfies { readonly [T in MirrorTable]: readonly (keyof MirrorColumns[T])[] };

const KEPT_ON_UPDATE: ReadonlySet<string> = new Set(['first_seen_at', 'last_synced_at']);

// kysely cannot type a table chosen at run time; one table's types stand for all three, the
// columns having come typed from MirrorColumns[T].
type AnyMirror = 'transfers';

/**
 * Inserts the first sighting of a resource; false when its row exists (the caller then locks
 * it and compares versions, see applyObservation). The unique key decides, not a read first,
 * so two jobs racing on a new resource insert it once.
 */
export async function insertMirrorIfNew<T extends MirrorTable>(
  db: Executor,
  table: T,
  columns: MirrorColumns[T],
): Promise<boolean> {
  const key: readonly string[] = MIRROR_KEYS[table];
  const row = await db
    .insertInto(table as AnyMirror)
    .values(columns as MirrorColumns[AnyMirror])
    .onConflict((oc) => oc.columns(key as ['id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Writes a newer sighting over the row. paysync's version guard: the caller holds the row
 * locked and has checked the service's `updatedAt` is newer; the same condition in the
 * statement keeps an older state from ever overwriting a newer one, whoever calls.
 */
export async function updateMirror<T extends MirrorTable>(
  db: Executor,
  table: T,
  columns: MirrorColumns[T],
): Promise<void> {
  const key: readonly string[] = MIRROR_KEYS[table];
  const given = columns as Record<string, unknown>;
  const state = Object.fromEntries(
    Object.entries(given).filter(
      ([column]) => !key.includes(column) && !KEPT_ON_UPDATE.has(column),
    ),
  ) as Partial<MirrorColumns[AnyMirror]>;
  let query = db
    .updateTable(table as AnyMirror)
    .set({ ...state, last_synced_at: laterSyncTime(given.last_synced_at as string) })
    .where('updated_at', '<', given.updated_at as string);
  for (const column of key) query = query.where(column as 'id', '=', given[column] as string);
  await query.execute();
}

const MIRROR_COLUMNS = {
  payment_intents: [] as string[],
  transfers: [] as string[],
  refunds: [] as string[],
};

function columnsOf(table: MirrorTable, sample: object): string[] {
  const known = MIRROR_COLUMNS[table];
  if (known.length === 0) known.push(...Object.keys(sample));
  return known;
}

function rowValues(columns: readonly string[], row: object): unknown[] {
  const given = row as Record<string, unknown>;
  return columns.map((column) => given[column] ?? null);
}

/**
 * The batch form of {@link insertMirrorIfNew}: inserts each row unless its key exists, in
 * multi-row statements; returns the keys (`id`, or `kind:id` for refunds) it inserted.
 */
export async function insertMirrorsIfNew<T extends MirrorTable>(
  db: Executor,
  table: T,
  rows: readonly MirrorColumns[T][],
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const key: readonly string[] = MIRROR_KEYS[table];
  const columns = columnsOf(table, rows[0]!);
  const inserted = await runBulk<Record<string, string>>(
    db,
    {
      table,
      columns,
      tail: `on conflict (${key.join(', ')}) do nothing returning ${key.join(', ')}`,
    },
    rows.map((row) => rowValues(columns, row)),
  );
  return new Set(inserted.map((row) => key.map((column) => row[column]).join(':')));
}

/**
 * The batch form of {@link updateMirror}: writes each newer sighting over its row, with the
 * same version guard in the statement and `last_synced_at` only moving forward.
 */
export async function updateMirrors<T extends MirrorTable>(
  db: Executor,
  table: T,
  rows: readonly MirrorColumns[T][],
): Promise<void> {
  if (rows.length === 0) return;
  const key: readonly string[] = MIRROR_KEYS[table];
  const columns = columnsOf(table, rows[0]!);
  const state = columns.filter((c) => !key.includes(c) && !KEPT_ON_UPDATE.has(c));
  const tail =
    `on conflict (${key.join(', ')}) do update set ` +
    state.map((c) => `${c} = excluded.${c}`).join(', ') +
    `, last_synced_at = case when ${table}.last_synced_at < excluded.last_synced_at` +
    ` then excluded.last_synced_at else ${table}.last_synced_at end` +
    ` where ${table}.updated_at < excluded.updated_at`;
  await runBulk(
    db,
    { table, columns, tail },
    rows.map((row) => rowValues(columns, row)),
  );
}
