import {
  prunableRows,
  type Executor,
  type PrunableRows,
  type PrunableTable,
  type PruneBatch,
} from '../db/index.ts';

/*
 * Retention of the inbox (docs/retention.md): a processed row loses its raw body and headers,
 * never the row. Its dedupe key keeps a redelivery a duplicate, its event id and type, resource
 * and outcome keep `show`, replay and the audit's coverage check working. Only `processed` rows:
 * an unclassified or failed row's body is what an operator reads to find out why.
 *
 * The partial index `webhook_inbox_body_prunable` (migration 0011: status and processed_at of
 * rows still holding a body) serves each batch as one range read: it never reads a row done.
 */

/** Processed rows that still hold a body and finished before `before`. */
export async function inboxBodiesPrunable(db: Executor, before: Date): Promise<PrunableRows> {
  const row = await db
    .selectFrom('webhook_inbox')
    .select((eb) => [
      eb.fn.countAll<number>().as('count'),
      eb.fn.min<string | null>('processed_at').as('oldest'),
      eb.fn.max<string | null>('processed_at').as('newest'),
    ])
    .where('status', '=', 'processed')
    .where('body_pruned_at', 'is', null)
    .where('processed_at', '<', before.toISOString())
    .executeTakeFirst();
  return prunableRows(row);
}

/**
 * Drops the body and headers of at most `limit` such rows, oldest first, and stamps
 * `body_pruned_at`. Ids are picked first, then updated by id with the conditions checked again,
 * so a row reopened by a replay in between keeps its body. Returns the rows changed.
 */
export async function pruneInboxBodies(db: Executor, batch: PruneBatch): Promise<number> {
  const picked = await db
    .selectFrom('webhook_inbox')
    .select('id')
    .where('status', '=', 'processed')
    .where('body_pruned_at', 'is', null)
    .where('processed_at', '<', batch.before.toISOString())
    .orderBy('processed_at')
    .limit(batch.limit)
    .execute();
  if (picked.length === 0) return 0;
  const result = await db
    .updateTable('webhook_inbox')
    .set({ raw_body: Buffer.alloc(0), headers: '{}', body_pruned_at: batch.at.toISOString() })
    .where(
      'id',
      'in',
      picked.map((row) => row.id),
    )
    .where('status', '=', 'processed')
    .where('body_pruned_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The inbox bodies, for src/retention. */
export const INBOX_BODIES_RETENTION: PrunableTable = {
  table: 'webhook_inbox',
  prunable: inboxBodiesPrunable,
  prune: pruneInboxBodies,
};
