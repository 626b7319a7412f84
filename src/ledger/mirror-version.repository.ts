import { sql } from 'kysely';
import { dialectOfDb, type Executor } from '../db/index.ts';
import type { RefundKind } from '../resources/index.ts';
import { chunksOf } from '../db/index.ts';

/** Which mirror row: a payment intent or transfer by id, a refund by (kind, id). */
export type MirrorKey =
  | { readonly table: 'payment_intents' | 'transfers'; readonly id: string }
  | { readonly table: 'refunds'; readonly kind: RefundKind; readonly id: string };

export interface MirrorVersion {
  readonly status: string;
  readonly upstreamStatus: string;
  readonly updatedAt: string;
}

/**
 * The versions the mirror holds of many rows of one table (and one refund kind), by id. On
 * PostgreSQL the rows are locked until the caller's transaction ends, so two jobs applying the
 * same resource take turns instead of both deciding from the same old state. SQLite allows one
 * writer at a time anyway.
 */
export async function lockMirrorVersions(
  db: Executor,
  table: MirrorKey['table'],
  refundKind: RefundKind | undefined,
  ids: readonly string[],
): Promise<Map<string, MirrorVersion>> {
  const versions = new Map<string, MirrorVersion>();
  const lock = dialectOfDb(db) === 'postgres' ? sql` for update` : sql``;
  const kind = refundKind === undefined ? sql`` : sql` and kind = ${refundKind}`;
  for (const chunk of chunksOf(ids)) {
    const result = await sql<{
      id: string;
      status: string;
      upstream_status: string;
      updated_at: string;
    }>`select id, status, upstream_status, updated_at from ${sql.table(table)}
      where id in (${sql.join(chunk)})${kind} order by id${lock}`.execute(db);
    for (const row of result.rows) {
      versions.set(row.id, {
        status: row.status,
        upstreamStatus: row.upstream_status,
        updatedAt: row.updated_at,
      });
    }
  }
  return versions;
}

/** Notes that rows of one table were fetched at one instant, without touching what the service said. */
export async function touchMirrors(
  db: Executor,
  table: MirrorKey['table'],
  refundKind: RefundKind | undefined,
  ids: readonly string[],
  observedAt: string,
): Promise<void> {
  const kind = refundKind === undefined ? sql`` : sql` and kind = ${refundKind}`;
  for (const chunk of chunksOf(ids)) {
    await sql`update ${sql.table(table)} set last_synced_at = ${observedAt}
      where id in (${sql.join(chunk)})${kind} and last_synced_at < ${observedAt}`.execute(db);
  }
}
