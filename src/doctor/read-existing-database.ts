import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Kysely } from 'kysely';
import { createDatabase, dialectOf, type Database } from '../db/index.ts';

/**
 * Runs `read` on the configured database when it can be read, for a doctor check that looks at
 * what the books hold. Undefined when it cannot (no SQLite file yet, a refused connection, a
 * failed read): the database check says why, once.
 */
export async function readExistingDatabase<T>(
  databaseUrl: string,
  read: (db: Kysely<Database>) => Promise<T>,
): Promise<T | undefined> {
  if (dialectOf(databaseUrl) === 'sqlite') {
    const file = databaseUrl.slice('sqlite:'.length);
    if (file !== ':memory:' && !existsSync(resolve(file))) return undefined;
  }
  let handle;
  try {
    handle = createDatabase(databaseUrl, { poolSize: 1 });
  } catch {
    return undefined;
  }
  try {
    return await read(handle.db);
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
