import type { Kysely } from 'kysely';

/**
 * Issue 22 follow-up: `webhook_inbox` is the hottest table (the receiver inserts every webhook,
 * the worker updates every row once or twice) and every index costs both writes. Three indexes
 * overlapped on `processed_at`; this drops the one no statement needs once the others serve it:
 *
 * - `webhook_inbox_status_processed_at` (0012) had the same columns as the partial
 *   `webhook_inbox_body_prunable` (0011), and SQLite (which runs without statistics: paysync
 *   never runs ANALYZE) broke the tie in its favour for the retention batch, so every batch
 *   reread the rows whose bodies were already pruned, a cost that grows for ever. The pipeline
 *   page's "processed in the last hour", the one statement it was made for, now counts the
 *   status over a range of `webhook_inbox_processed_at` (0013); the open backlog, the
 *   unclassified count and the status counts are served by `webhook_inbox_status_received_at`.
 *
 * Kept, with the statements each serves (docs/performance.md, "Indexes of the inbox"):
 * `dedupe_key` (unique), `webhook_inbox_status_received_at`, `webhook_inbox_resource`,
 * `webhook_inbox_resource_id`, `webhook_inbox_resource_reference`, `webhook_inbox_body_prunable`,
 * `webhook_inbox_processed_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_inbox_status_processed_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_inbox_status_processed_at')
    .on('webhook_inbox')
    .columns(['status', 'processed_at'])
    .execute();
}
