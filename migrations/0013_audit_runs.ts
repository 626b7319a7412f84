import { type Kysely } from 'kysely';
import { withIdColumn } from './schema-helpers.ts';

/**
 * The auditor's own record (issue 22, docs/audit.md): one row per clean audit, with the
 * watermark an incremental audit (`paysync audit --since last-clean`) starts from: when it
 * started, and the highest journal and inbox ids it saw. A run that found a violation records
 * nothing, so the watermark never moves past something wrong.
 *
 * The indexes let an incremental audit find what changed without reading the books:
 * - the mirror tables by `last_synced_at` (every applied fetch moves it forward);
 * - processed inbox rows by `processed_at` (an old row closed since the watermark);
 * journals and inbox rows after the watermark are a range of their primary keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('audit_runs'))
    .addColumn('mode', 'text', (col) => col.notNull())
    .addColumn('started_at', 'text', (col) => col.notNull())
    .addColumn('finished_at', 'text', (col) => col.notNull())
    .addColumn('scope_from', 'text')
    .addColumn('max_journal_id', 'bigint', (col) => col.notNull())
    .addColumn('max_inbox_id', 'bigint', (col) => col.notNull())
    .addColumn('items', 'integer', (col) => col.notNull())
    .addColumn('journals', 'integer', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('audit_runs_started_at')
    .on('audit_runs')
    .column('started_at')
    .execute();
  for (const table of ['payment_intents', 'transfers', 'refunds']) {
    await db.schema
      .createIndex(`${table}_last_synced_at`)
      .on(table)
      .column('last_synced_at')
      .execute();
  }
  await db.schema
    .createIndex('webhook_inbox_processed_at')
    .on('webhook_inbox')
    .column('processed_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_inbox_processed_at').execute();
  for (const table of ['payment_intents', 'transfers', 'refunds']) {
    await db.schema.dropIndex(`${table}_last_synced_at`).execute();
  }
  await db.schema.dropTable('audit_runs').execute();
}
