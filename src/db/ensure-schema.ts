import { sql } from 'kysely';
import { createDatabase, dialectOf } from './create-database.ts';

/**
 * A PostgreSQL URL that puts a schema first with `options=-c search_path=<schema>`, split into
 * that schema and the server's URL without the option; undefined for SQLite or a URL without one.
 */
export function splitSearchPath(url: string): { schema: string; server: string } | undefined {
  if (dialectOf(url) !== 'postgres' || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options') ?? '';
  const schema = /(?:^|\s)-c\s*search_path=([a-z_][a-z0-9_]*)/.exec(options)?.[1];
  if (!schema) return undefined;
  parsed.searchParams.delete('options');
  return { schema, server: parsed.toString() };
}

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
