import { sql } from 'kysely';
import { createDatabase, dialectOf } from './create-database.ts';

/** The schema a PostgreSQL URL puts first with `options=-c search_path=<schema>`, if any. */
export function searchPathSchemaOf(url: string): string | undefined {
  if (dialectOf(url) !== 'postgres' || !URL.canParse(url)) return undefined;
  const options = new URL(url).searchParams.get('options') ?? '';
  const schema = /(?:^|\s)-c\s*search_path=([a-z_][a-z0-9_]*)/.exec(options)?.[1];
  return schema;
}

/**
 * Creates the schema a PostgreSQL URL's search_path names, when it is missing, so the
 * migrations have somewhere to go (a tenant's books: docs/tenants.md). Returns the schema when
 * the URL names one; does nothing for SQLite or a URL without one.
 */
export async function ensureSearchPathSchema(url: string): Promise<string | undefined> {
  const schema = searchPathSchemaOf(url);
  if (!schema) return undefined;
  const server = new URL(url);
  server.searchParams.delete('options');
  const handle = createDatabase(server.toString(), { poolSize: 1 });
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(handle.db);
  } finally {
    await handle.close().catch(() => undefined);
  }
  return schema;
}
