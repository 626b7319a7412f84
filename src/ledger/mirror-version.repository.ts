import { sql } from 'kysely';
import { dialectOfDb, type Executor } from '../db/index.ts';
import type { RefundKind } from '../resources/index.ts';

/** Which mirror row: a payment intent or transfer by id, a refund by (kind, id). */
export type MirrorKey =
  | { readonly table: 'payment_intents' | 'transfers'; readonly id: string }
  | { readonly table: 'refunds'; readonly kind: RefundKind; readonly id: string };

export interface MirrorVersion {
  readonly status: string;
  readonly upstreamStatus: string;
  readonly updatedAt: string;
}

function whereKey(key: MirrorKey) {
  return key.table === 'refunds' ? sql`kind = ${key.kind} and id = ${key.id}` : sql`id = ${key.id}`;
}

/**
 * The version the mirror holds. On PostgreSQL the row is locked until the caller's
 * transaction ends, so two jobs applying the same resource take turns instead of both
 * deciding from the same old state. SQLite allows one writer at a time anyway.
 */
export async function lockMirrorVersion(
  db: Executor,
  key: MirrorKey,
): Promise<MirrorVersion | undefined> {
  const lock = dialectOfDb(db) === 'postgres' ? sql` for update` : sql``;
  const result = await sql<{ status: string; upstream_status: string; updated_at: string }>`
    select status, upstream_status, updated_at from ${sql.table(key.table)}
    where ${whereKey(key)}${lock}`.execute(db);
  const row = result.rows[0];
  return (
    row && { status: row.status, upstreamStatus: row.upstream_status, updatedAt: row.updated_at }
  );
}

/** Notes that the resource was fetched, without touching what the service said. */
export async function touchMirror(db: Executor, key: MirrorKey, observedAt: string): Promise<void> {
  await sql`update ${sql.table(key.table)} set last_synced_at = ${observedAt}
    where ${whereKey(key)} and last_synced_at < ${observedAt}`.execute(db);
}
