import { sql, type Kysely } from 'kysely';
import { columnTypes, withIdColumn } from './schema-helpers.ts';

/** The durable inbox every webhook lands in before the receiver answers 2xx. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const types = columnTypes(db);
  await withIdColumn(db, db.schema.createTable('webhook_inbox'))
    .addColumn('dedupe_key', 'text', (col) => col.notNull().unique())
    .addColumn('event_id', 'text')
    .addColumn('event_type', 'text')
    .addColumn('raw_body', types.bytes, (col) => col.notNull())
    .addColumn('headers', 'text', (col) => col.notNull())
    .addColumn('received_at', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) =>
      col
        .notNull()
        .defaultTo('received')
        .check(sql`status in ('received', 'processing', 'processed', 'unclassified', 'failed')`),
    )
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('processed_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_inbox_status_received_at')
    .on('webhook_inbox')
    .columns(['status', 'received_at'])
    .execute();
}
