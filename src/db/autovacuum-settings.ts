import { sql, type Kysely } from 'kysely';
import { dialectOfDb } from './dialect-of-db.ts';

/** Whether PostgreSQL keeps paysync's tables vacuumed and their planner statistics fresh. */
export interface AutovacuumSettings {
  /** The server's `autovacuum` setting. */
  readonly autovacuum: boolean;
  /** The server's `track_counts`: without it autovacuum has nothing to go by and never runs. */
  readonly trackCounts: boolean;
  /** The schema read (the connection's current schema); undefined when it has none. */
  readonly schema: string | undefined;
  /** Tables of that schema with `autovacuum_enabled` set false in their storage parameters. */
  readonly tablesWithout: readonly string[];
}

/**
 * The server's autovacuum settings and the tables of the connection's schema that turn it off;
 * undefined on SQLite, which has no autovacuum of this kind. Reads catalogs only.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database type will do
export async function autovacuumSettings(db: Kysely<any>): Promise<AutovacuumSettings | undefined> {
  if (dialectOfDb(db) !== 'postgres') return undefined;
  const settings = await sql<{ autovacuum: string; track_counts: string; schema: string | null }>`
    select current_setting('autovacuum') as autovacuum,
      current_setting('track_counts') as track_counts, current_schema() as schema`.execute(db);
  // A storage parameter keeps the text it was given (false, off, no, 0…): PostgreSQL reads it.
  const tables = await sql<{ name: string }>`
    select c.relname as name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p')
      and exists (
        select 1 from unnest(c.reloptions) option
        where split_part(option, '=', 1) = 'autovacuum_enabled'
          and not split_part(option, '=', 2)::boolean)
    order by c.relname`.execute(db);
  const row = settings.rows[0];
  return {
    autovacuum: row?.autovacuum === 'on',
    trackCounts: row?.track_counts === 'on',
    schema: row?.schema ?? undefined,
    tablesWithout: tables.rows.map((table) => table.name),
  };
}
