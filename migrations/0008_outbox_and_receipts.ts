import type { Kysely } from 'kysely';
import { withIdColumn } from '../src/db/schema-helpers.ts';

/**
 * The transactional outbox (follow-ups written in the transaction of the change that calls
 * for them, handed to BullMQ afterwards) and the receipt archive's index (the HTML itself is
 * on disk, one file per sha256).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('outbox'))
    .addColumn('kind', 'text', (col) => col.notNull())
    // Same key, same follow-up: a replayed change cannot add a second row.
    .addColumn('dedupe_key', 'text', (col) => col.unique())
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    // Not handed out before this time (a receipt retried later); equal to created_at otherwise.
    .addColumn('available_at', 'text', (col) => col.notNull())
    .addColumn('dispatched_at', 'text')
    // Stamped by the consumer when its work is done: a second delivery of the row is a no-op.
    .addColumn('consumed_at', 'text')
    .addColumn('dispatch_attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .execute();
  await db.schema
    .createIndex('outbox_pending')
    .on('outbox')
    .columns(['dispatched_at', 'available_at', 'id'])
    .execute();
  // Handed out but never consumed: handed out again in case Redis lost the job.
  await db.schema
    .createIndex('outbox_unconsumed')
    .on('outbox')
    .columns(['consumed_at', 'dispatched_at'])
    .execute();

  await withIdColumn(db, db.schema.createTable('receipts'))
    .addColumn('resource_kind', 'text', (col) => col.notNull())
    .addColumn('resource_id', 'text', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('fetched_at', 'text', (col) => col.notNull())
    // An identical refetch adds nothing; a changed receipt is a new row beside the old one.
    .addUniqueConstraint('receipts_resource_content', ['resource_kind', 'resource_id', 'sha256'])
    .execute();
  await db.schema
    .createIndex('receipts_resource')
    .on('receipts')
    .columns(['resource_kind', 'resource_id', 'fetched_at'])
    .execute();
}
