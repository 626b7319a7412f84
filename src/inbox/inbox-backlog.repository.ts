import { sql } from 'kysely';
import type { Executor } from '../db/index.ts';

/**
 * Open inbox rows (`received` or `processing`: stored, not yet done), counted up to `atMost`:
 * the receiver's backpressure only needs to know whether the backlog passed its threshold, so
 * the count stops there and costs the same on a backlog of a million rows. Served by the
 * `(status, received_at)` index alone (an index range per status, no table read).
 */
export async function openInboxBacklog(db: Executor, atMost: number): Promise<number> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('webhook_inbox')
        // A constant, not a column: PostgreSQL answers from the index alone.
        .select(sql<number>`1`.as('one'))
        .where('status', 'in', ['received', 'processing'])
        .limit(atMost)
        .as('open_rows'),
    )
    .select((eb) => eb.fn.countAll<number>().as('open'))
    .executeTakeFirst();
  return Number(row?.open ?? 0);
}
