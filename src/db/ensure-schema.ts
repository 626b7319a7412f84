import { sql } from 'kysely';
import { createDatabase } from './create-database.ts';
import { splitSearchPath } from './schema-pool.ts';

/**
 * Creates the schema a PostgreSQL URL's search_path names, when it is missing, so the
 * migrations have somewhere to go (a tenant's books: docs/tenants.md). Returns the schema when
 * the URL names one; does nothing for SQLite or a URL without one.
 */
export async function ensureSearchPathSchema(url: string): Promise<string | undefined> {
  const split = splitSearchPath(url);
  if (!split) return undefined;
  const { schema, server } = split;
  const handle = createDatabase(server, { poolSize: 1 });
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(handle.db);
  } finally {
    await handle.close().catch(() => undefined);
  }
  return schema;
}
