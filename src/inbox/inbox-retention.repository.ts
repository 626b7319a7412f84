import { prunableTable, type PrunableTable } from '../db/index.ts';

/*
 * Retention of the inbox (docs/retention.md): a processed row loses its raw body and headers,
 * never the row. Its dedupe key keeps a redelivery a duplicate, its event id and type, resource
 * and outcome keep `show`, replay and the audit's coverage check working. Only `processed` rows:
 * an unclassified or failed row's body is what an operator reads to find out why.
 *
 * The partial index `webhook_inbox_body_prunable` (migration 0011: status and processed_at of
 * rows still holding a body) serves each batch as one range read: it never reads a row done.
 * A row reopened by a replay between the pick and the write keeps its body (checked again).
 */

/** Processed rows that still hold a body, by `processed_at`: their body and headers go. */
export const INBOX_BODIES_RETENTION: PrunableTable = prunableTable({
  table: 'webhook_inbox',
  timeColumn: 'processed_at',
  condition: (eb) => eb.and([eb('status', '=', 'processed'), eb('body_pruned_at', 'is', null)]),
  update: (batch) => ({
    raw_body: Buffer.alloc(0),
    headers: '{}',
    body_pruned_at: batch.at.toISOString(),
  }),
});

/** Processed rows that still hold a body and finished before `before`. */
export const inboxBodiesPrunable = INBOX_BODIES_RETENTION.prunable;

/**
 * Drops the body and headers of at most `limit` such rows, oldest first, and stamps
 * `body_pruned_at`. Returns the rows changed.
 */
export const pruneInboxBodies = INBOX_BODIES_RETENTION.prune;
