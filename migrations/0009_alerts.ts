import type { Kysely } from 'kysely';
import { withIdColumn } from './schema-helpers.ts';

/**
 * Alerts, their per-sink deliveries and the digests that stand in for bursts. `open_key` is
 * the dedupe key while an alert is open or acknowledged and NULL once resolved: its unique
 * index (NULLs are distinct on both dialects) keeps one live alert per condition even when two
 * workers raise it at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('alerts'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('severity', 'text', (col) => col.notNull())
    .addColumn('dedupe_key', 'text', (col) => col.notNull())
    .addColumn('open_key', 'text')
    .addColumn('subject', 'text')
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('body', 'text', (col) => col.notNull())
    .addColumn('detail', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('digested', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('occurrences', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_seen_at', 'text', (col) => col.notNull())
    .addColumn('notified_at', 'text')
    .addColumn('acked_at', 'text')
    .addColumn('ack_note', 'text')
    .addColumn('snoozed_until', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('resolved_by', 'text')
    .execute();
  await db.schema.createIndex('alerts_open_key').unique().on('alerts').column('open_key').execute();
  await db.schema
    .createIndex('alerts_kind_created')
    .on('alerts')
    .columns(['kind', 'created_at'])
    .execute();
  await db.schema
    .createIndex('alerts_dedupe_key')
    .on('alerts')
    .columns(['dedupe_key', 'created_at'])
    .execute();

  await withIdColumn(db, db.schema.createTable('alert_digests'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('open_key', 'text')
    .addColumn('window_start', 'text', (col) => col.notNull())
    .addColumn('due_at', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('alert_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('sent_at', 'text')
    .execute();
  await db.schema
    .createIndex('alert_digests_open_key')
    .unique()
    .on('alert_digests')
    .column('open_key')
    .execute();

  await withIdColumn(db, db.schema.createTable('alert_deliveries'))
    .addColumn('alert_id', 'bigint')
    .addColumn('digest_id', 'bigint')
    .addColumn('sink', 'text', (col) => col.notNull())
    .addColumn('event', 'text', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema
    .createIndex('alert_deliveries_due')
    .on('alert_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('alert_deliveries_alert')
    .on('alert_deliveries')
    .column('alert_id')
    .execute();
}
