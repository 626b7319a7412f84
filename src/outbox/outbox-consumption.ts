import { sql } from 'kysely';
import type { Executor } from '../db/index.ts';

/**
 * True when the consumer already did the work of this outbox row. A consumer checks it first,
 * so a row handed out twice (a dispatcher that died between the hand-out and its stamp, two
 * dispatchers racing) is done once. A row id that is not in the table counts as not consumed.
 */
export async function isOutboxConsumed(executor: Executor, outboxId: number): Promise<boolean> {
  const row = await executor
    .selectFrom('outbox')
    .select('consumed_at')
    .where('id', '=', outboxId)
    .executeTakeFirst();
  return row?.consumed_at != null;
}

/**
 * Stamps the row as done at `at` (the caller's clock, UTC ISO 8601). Call it in the transaction that records the consumer's work (the
 * receipt row, the alert's delivery state), so the work and the stamp commit together.
 * Returns false when it was already stamped (another delivery finished first).
 */
export async function markOutboxConsumed(
  executor: Executor,
  outboxId: number,
  at: string,
): Promise<boolean> {
  const result = await executor
    .updateTable('outbox')
    .set({ consumed_at: at })
    .where('id', '=', outboxId)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface OpenOutboxEntry {
  readonly id: number;
  readonly kind: string;
  readonly dedupeKey: string | null;
  readonly payload: Record<string, unknown>;
  readonly availableAt: string;
  readonly dispatchedAt: string | null;
}

/** Rows of a kind not consumed yet, optionally only those whose dedupe key starts with a prefix. */
export async function openOutboxEntries(
  executor: Executor,
  filter: { kind: string; dedupeKeyPrefix?: string },
): Promise<OpenOutboxEntry[]> {
  let query = executor
    .selectFrom('outbox')
    .selectAll()
    .where('kind', '=', filter.kind)
    .where('consumed_at', 'is', null);
  if (filter.dedupeKeyPrefix !== undefined) {
    const prefix = filter.dedupeKeyPrefix;
    // A prefix compare rather than LIKE: ids contain `_`, a LIKE wildcard.
    query = query.where(sql<boolean>`substr(dedupe_key, 1, ${sql.lit(prefix.length)}) = ${prefix}`);
  }
  const rows = await query.orderBy('id').execute();
  return rows.map((row) => ({
    id: Number(row.id),
    kind: row.kind,
    dedupeKey: row.dedupe_key,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    availableAt: row.available_at,
    dispatchedAt: row.dispatched_at,
  }));
}
