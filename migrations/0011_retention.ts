import { sql, type Kysely } from 'kysely';

/**
 * Retention (issue 22, docs/retention.md). An inbox row whose raw body was pruned keeps its
 * identity, dedupe key, event id and type, resource and outcome; `body_pruned_at` says when the
 * body went, so every reader can tell "pruned" from "empty". The indexes let each pruning batch
 * find its next rows without reading the ones already done:
 * - `webhook_inbox_body_prunable` is partial: only rows that still hold a body, by status and
 *   the time they finished, so a batch is one range read in order (SQLite, without statistics,
 *   would otherwise take `webhook_inbox_status_received_at` and sort every processed row);
 * - `scheduled_runs_started`, `alert_deliveries_created`: the age of what may go. The outbox's
 *   consumed rows are found by `outbox_unconsumed` (consumed_at first), already there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_inbox').addColumn('body_pruned_at', 'text').execute();
  await db.schema
    .createIndex('webhook_inbox_body_prunable')
    .on('webhook_inbox')
    .columns(['status', 'processed_at'])
    .where(sql.ref('body_pruned_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('scheduled_runs_started')
    .on('scheduled_runs')
    .column('started_at')
    .execute();
  await db.schema
    .createIndex('alert_deliveries_created')
    .on('alert_deliveries')
    .column('created_at')
    .execute();
}
