import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/database.ts';

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Writes `value` under `key` unless the key is already set; returns the value now on file
 * (the caller's, or the one that was there). The unique key decides between concurrent writers.
 */
export async function setStateValueOnce(
  db: Executor,
  key: string,
  value: unknown,
  at: string,
): Promise<unknown> {
  await db
    .insertInto('service_state')
    .values({ key, value: JSON.stringify(value), updated_at: at })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return readStateValue(db, key);
}

export async function readStateValue(db: Executor, key: string): Promise<unknown> {
  const row = await db
    .selectFrom('service_state')
    .select('value')
    .where('key', '=', key)
    .executeTakeFirst();
  return row ? JSON.parse(row.value) : undefined;
}
