import type { ExpressionBuilder } from 'kysely';
import {
  prunableRows,
  type Database,
  type Executor,
  type PrunableRows,
  type PrunableTable,
  type PruneBatch,
} from '../db/index.ts';

/*
 * Retention of alert deliveries (docs/retention.md): a message delivered, or given up for good
 * (failed with no next try), long ago goes; one still pending or due a retry never does. The
 * alerts themselves stay: they are few, and `paysync alerts` is their history.
 */

function finished(eb: ExpressionBuilder<Database, 'alert_deliveries'>) {
  return eb.or([
    eb('status', '=', 'delivered'),
    eb.and([eb('status', '=', 'failed'), eb('next_attempt_at', 'is', null)]),
  ]);
}

/** Finished deliveries created before `before`. */
export async function alertDeliveriesPrunable(db: Executor, before: Date): Promise<PrunableRows> {
  const row = await db
    .selectFrom('alert_deliveries')
    .select((eb) => [
      eb.fn.countAll<number>().as('count'),
      eb.fn.min<string | null>('created_at').as('oldest'),
      eb.fn.max<string | null>('created_at').as('newest'),
    ])
    .where('created_at', '<', before.toISOString())
    .where(finished)
    .executeTakeFirst();
  return prunableRows(row);
}

/** Deletes at most `limit` of them, oldest first, by id. Returns the rows deleted. */
export async function pruneAlertDeliveries(db: Executor, batch: PruneBatch): Promise<number> {
  const picked = await db
    .selectFrom('alert_deliveries')
    .select('id')
    .where('created_at', '<', batch.before.toISOString())
    .where(finished)
    .orderBy('created_at')
    .limit(batch.limit)
    .execute();
  if (picked.length === 0) return 0;
  const result = await db
    .deleteFrom('alert_deliveries')
    .where(
      'id',
      'in',
      picked.map((row) => row.id),
    )
    .where(finished)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The finished alert deliveries, for src/retention. */
export const ALERT_DELIVERIES_RETENTION: PrunableTable = {
  table: 'alert_deliveries',
  prunable: alertDeliveriesPrunable,
  prune: pruneAlertDeliveries,
};
