import type { Kysely } from 'kysely';

/**
 * The ops API's and the CLI's refund lists (`GET /api/v1/refunds`, `paysync list refunds`) read
 * one kind of refund newest first: `where kind = ? order by updated_at desc`. The only index led by
 * kind also has status, so on a year of books (issue 22, `bench:big-books`, 2 million items) the
 * list read every refund of the kind and sorted it: 749 ms against 23 on one day's books.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('refunds_kind_updated_at')
    .on('refunds')
    .columns(['kind', 'updated_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('refunds_kind_updated_at').execute();
}
