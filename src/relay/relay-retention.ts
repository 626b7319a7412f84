import {
  prunableRows,
  type Executor,
  type PrunableRows,
  type PrunableTable,
  type PruneBatch,
} from '../db/index.ts';

/*
 * Retention of the relay's tables (docs/relay.md, docs/retention.md), one period
 * (PAYSYNC_RETENTION_RELAY_AFTER) for the three, pruned in this order:
 * - relay_attempts (the delivery log): rows attempted before the cutoff;
 * - relay_deliveries: finished ones (delivered or gave_up) that finished before the cutoff;
 *   a pending delivery never goes, whatever its age;
 * - relay_events: created before the cutoff and no longer named by any delivery (a pending
 *   one needs its event; a finished one still shown in the log keeps it until it goes itself).
 * Every statement walks an index in time order and deletes by id, in batches.
 */

const FINISHED = ['delivered', 'gave_up'];

function finishedBefore(before: string) {
  // A finished delivery was due (next_attempt_at) no later than it finished: the due index
  // (state, next_attempt_at, id) finds the old ones without reading the recent ones.
  return <T extends Executor>(db: T) =>
    db
      .selectFrom('relay_deliveries')
      .where('state', 'in', FINISHED)
      .where('next_attempt_at', '<', before)
      .where('finished_at', '<', before);
}

export const RELAY_ATTEMPTS_RETENTION: PrunableTable = {
  table: 'relay_attempts',
  async prunable(db: Executor, before: Date): Promise<PrunableRows> {
    const row = await db
      .selectFrom('relay_attempts')
      .select((eb) => [
        eb.fn.countAll<number>().as('count'),
        eb.fn.min<string | null>('attempted_at').as('oldest'),
        eb.fn.max<string | null>('attempted_at').as('newest'),
      ])
      .where('attempted_at', '<', before.toISOString())
      .executeTakeFirst();
    return prunableRows(row);
  },
  async prune(db: Executor, batch: PruneBatch): Promise<number> {
    const picked = await db
      .selectFrom('relay_attempts')
      .select('id')
      .where('attempted_at', '<', batch.before.toISOString())
      .orderBy('attempted_at')
      .limit(batch.limit)
      .execute();
    if (picked.length === 0) return 0;
    const result = await db
      .deleteFrom('relay_attempts')
      .where(
        'id',
        'in',
        picked.map((row) => row.id),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};

export const RELAY_DELIVERIES_RETENTION: PrunableTable = {
  table: 'relay_deliveries',
  async prunable(db: Executor, before: Date): Promise<PrunableRows> {
    const row = await finishedBefore(before.toISOString())(db)
      .select((eb) => [
        eb.fn.countAll<number>().as('count'),
        eb.fn.min<string | null>('finished_at').as('oldest'),
        eb.fn.max<string | null>('finished_at').as('newest'),
      ])
      .executeTakeFirst();
    return prunableRows(row);
  },
  async prune(db: Executor, batch: PruneBatch): Promise<number> {
    const picked = await finishedBefore(batch.before.toISOString())(db)
      .select('id')
      .orderBy('next_attempt_at')
      .limit(batch.limit)
      .execute();
    if (picked.length === 0) return 0;
    const result = await db
      .deleteFrom('relay_deliveries')
      .where(
        'id',
        'in',
        picked.map((row) => row.id),
      )
      .where('state', 'in', FINISHED)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};

function unneededEventsBefore(before: string) {
  // No delivery names the event. The probe goes through the endpoints (a handful of rows) so
  // that each (endpoint_id, event_id) lookup uses the unique index of relay_deliveries.
  return <T extends Executor>(db: T) =>
    db
      .selectFrom('relay_events as ev')
      .where('ev.created_at', '<', before)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('relay_endpoints as ep')
              .innerJoin('relay_deliveries as d', 'd.endpoint_id', 'ep.id')
              .select('d.id')
              .whereRef('d.event_id', '=', 'ev.id'),
          ),
        ),
      );
}

export const RELAY_EVENTS_RETENTION: PrunableTable = {
  table: 'relay_events',
  async prunable(db: Executor, before: Date): Promise<PrunableRows> {
    const row = await unneededEventsBefore(before.toISOString())(db)
      .select((eb) => [
        eb.fn.countAll<number>().as('count'),
        eb.fn.min<string | null>('ev.created_at').as('oldest'),
        eb.fn.max<string | null>('ev.created_at').as('newest'),
      ])
      .executeTakeFirst();
    return prunableRows(row);
  },
  async prune(db: Executor, batch: PruneBatch): Promise<number> {
    const picked = await unneededEventsBefore(batch.before.toISOString())(db)
      .select('ev.id')
      .orderBy('ev.created_at')
      .limit(batch.limit)
      .execute();
    if (picked.length === 0) return 0;
    // Checked again: a redelivery may have given an old event a new delivery since it was picked.
    const result = await db
      .deleteFrom('relay_events')
      .where(
        'id',
        'in',
        picked.map((row) => row.id),
      )
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('relay_deliveries as d')
              .select('d.id')
              .whereRef('d.event_id', '=', 'relay_events.id'),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
