import { prunableTable, type PrunableTable } from '../db/index.ts';

/*
 * Retention of the outbox (docs/retention.md): a row consumed long ago has done its work and
 * goes; a row not consumed yet (waiting, or dispatched and in flight) never does, whatever its
 * age, so no follow-up is lost. Found through `outbox_unconsumed` (consumed_at first).
 */

/** The consumed outbox rows, by `consumed_at`: deleted. */
export const OUTBOX_RETENTION: PrunableTable = prunableTable({
  table: 'outbox',
  timeColumn: 'consumed_at',
  condition: (eb) => eb('consumed_at', 'is not', null),
});

/** Rows consumed before `before`. */
export const outboxRowsPrunable = OUTBOX_RETENTION.prunable;

/** Deletes at most `limit` of them, oldest first, by id. Returns the rows deleted. */
export const pruneOutboxRows = OUTBOX_RETENTION.prune;
