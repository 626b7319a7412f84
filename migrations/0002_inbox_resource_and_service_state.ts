import type { Kysely } from 'kysely';

/**
 * The inbox learns which resource an event named (set by the ingest job), so `show` can list
 * a resource's events and a sync can mark exactly the events it covered. `service_state`
 * keeps facts every process must see, such as "the service rejected our credentials".
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_inbox').addColumn('resource_kind', 'text').execute();
  await db.schema.alterTable('webhook_inbox').addColumn('resource_id', 'text').execute();
  await db.schema.alterTable('webhook_inbox').addColumn('resource_reference', 'text').execute();
  await db.schema
    .createIndex('webhook_inbox_resource')
    .on('webhook_inbox')
    .columns(['resource_kind', 'resource_id'])
    .execute();
  await db.schema
    .createTable('service_state')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
}
