import {
  prunableRows,
  type Executor,
  type PrunableRows,
  type PrunableTable,
  type PruneBatch,
} from '../db/index.ts';

/*
 * Retention of the outbox (docs/retention.md): a row consumed long ago has done its work and
 * goes; a row not consumed yet (waiting, or dispatched and in flight) never does, whatever its
 * age, so no follow-up is lost. Found through `outbox_unconsumed` (consumed_at first).
 */

/** Rows consumed before `before`. */
export async function outboxRowsPrunable(db: Executor, before: Date): Promise<PrunableRows> {
  const row = await db
    .selectFrom('outbox')
    .select((eb) => [
      eb.fn.countAll<number>().as('count'),
      eb.fn.min<string | null>('consumed_at').as('oldest'),
      eb.fn.max<string | null>('consumed_at').as('newest'),
    ])
    .where('consumed_at', 'is not', null)
    .where('consumed_at', '<', before.toISOString())
    .executeTakeFirst();
  return prunableRows(row);
}

/** Deletes at most `limit` of them, oldest first, by id. Returns the rows deleted. */
export async function pruneOutboxRows(db: Executor, batch: PruneBatch): Promise<number> {
  const picked = await db
    .selectFrom('outbox')
    .select('id')
    .where('consumed_at', 'is not', null)
    .where('consumed_at', '<', batch.before.toISOString())
    .orderBy('consumed_at')
    .limit(batch.limit)
    .execute();
  if (picked.length === 0) return 0;
  const result = await db
    .deleteFrom('outbox')
    .where(
      'id',
      'in',
      picked.map((row) => row.id),
    )
    .where('consumed_at', 'is not', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The consumed outbox rows, for src/retention. */
export const OUTBOX_RETENTION: PrunableTable = {
  table: 'outbox',
  prunable: outboxRowsPrunable,
  prune: pruneOutboxRows,
};
