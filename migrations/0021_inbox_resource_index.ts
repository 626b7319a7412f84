import { sql, type Kysely } from 'kysely';

/**
 * Issue 22, the pipeline on a year of books: two of the four indexes of `webhook_inbox` that took
 * a random insert for every webhook received (keyed by an id, not by time) go; on six million
 * rows each such insert misses the page cache.
 *
 * Two were keyed by the resource's id:
 * `webhook_inbox_resource` (resource_kind, resource_id), for the worker's closing of a batch's
 * rows, its latest open ids, the sweeps' "did a webhook name it" and `referenceFromInbox`, and
 * `webhook_inbox_resource_id` (resource_id), for an item's events of any kind (`show`, the item
 * page). One index on (resource_id, resource_kind) serves both: the id alone by its first
 * column, the kind and the id as two equalities.
 *
 * `webhook_inbox_resource_reference` held every row with a reference, which is nearly every row
 * (transfers carry `reference`, payments `purchaseReference`), though every statement that looks
 * rows up by reference wants only those that name no id (a row with an id is found by its id).
 * It becomes partial: `webhook_inbox_reference_only`, rows that name no id (a few unclassified
 * rows with no reference either sit in it under null).
 *
 * Building the two indexes reads the table once each (tens of seconds on a year of books);
 * `paysync migrate` prints each migration as it applies.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_inbox_resource_id_kind')
    .on('webhook_inbox')
    .columns(['resource_id', 'resource_kind'])
    .execute();
  await db.schema
    .createIndex('webhook_inbox_reference_only')
    .on('webhook_inbox')
    .column('resource_reference')
    .where(sql.ref('resource_id'), 'is', null)
    .execute();
  await db.schema.dropIndex('webhook_inbox_resource').execute();
  await db.schema.dropIndex('webhook_inbox_resource_id').execute();
  await db.schema.dropIndex('webhook_inbox_resource_reference').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_inbox_resource_id')
    .on('webhook_inbox')
    .column('resource_id')
    .execute();
  await db.schema
    .createIndex('webhook_inbox_resource')
    .on('webhook_inbox')
    .columns(['resource_kind', 'resource_id'])
    .execute();
  await db.schema
    .createIndex('webhook_inbox_resource_reference')
    .on('webhook_inbox')
    .column('resource_reference')
    .where(sql.ref('resource_reference'), 'is not', null)
    .execute();
  await db.schema.dropIndex('webhook_inbox_reference_only').execute();
  await db.schema.dropIndex('webhook_inbox_resource_id_kind').execute();
}
