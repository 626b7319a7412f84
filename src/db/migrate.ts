import {
  Migrator,
  sql,
  type DatabaseIntrospector,
  type Kysely,
  type Migration,
  type MigrationProvider,
  type TableMetadata,
} from 'kysely';
import { MIGRATION_NAMES } from '../../migrations/names.ts';
import type { Database } from './database.ts';
import { dialectOfDb } from './dialect-of-db.ts';
import { reasonOf } from '../error-reason.ts';

export interface MigrationStatus {
  readonly applied: readonly string[];
  readonly pending: readonly string[];
}

/** Raised when a migration fails; names it and carries the database's reason. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(
    readonly migration: string | undefined,
    readonly reason: unknown,
  ) {
    super(`migration ${migration ?? '(unknown)'} failed: ${reasonOf(reason)}`);
  }
}

/**
 * On PostgreSQL kysely looks for its bookkeeping tables in every schema unless told which;
 * pin them to the connection's current schema so two schemas in one database never mix.
 */
async function migratorFor(db: Kysely<Database>, provider: MigrationProvider): Promise<Migrator> {
  const schema = dialectOfDb(db) === 'postgres' ? await currentSchema(db) : undefined;
  return new Migrator({
    db: schema ? withOwnSchemaIntrospection(db) : db,
    provider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

/**
 * The tables of the connection's current schema, by name only. kysely's PostgreSQL introspector
 * reads every column of every schema in the database (and resolves each with
 * `pg_get_serial_sequence`), so DDL in any other schema at that moment (another paysync on the
 * same server, parallel test files) failed our migration with 3F000, 42P01 or 42703, naming
 * tables that are not ours. The migrator only asks whether its two bookkeeping tables exist.
 */
function ownSchemaIntrospector(db: Kysely<Database>): DatabaseIntrospector {
  const getTables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ schema: string; name: string }>`
      select n.nspname as schema, c.relname as name
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p')`.execute(db);
    return rows.map((row) => ({ ...row, isView: false, columns: [] }));
  };
  return {
    getSchemas: () => db.introspection.getSchemas(),
    getTables,
    getMetadata: async () => ({ tables: await getTables() }),
  };
}

/** `db` for the migrator, with {@link ownSchemaIntrospector} as its `introspection`. */
function withOwnSchemaIntrospection(db: Kysely<Database>): Kysely<Database> {
  const introspection = ownSchemaIntrospector(db);
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      // Kysely's methods read private fields: they must run on the instance, not the proxy.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The connection's schema on PostgreSQL: the first of its search_path that exists and it may use. */
export async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  const result = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(
    db,
  );
  return result.rows[0]?.schema ?? undefined;
}

/** The migration modules, loaded only to apply them: they import kysely's schema builders. */
const migrationModules: MigrationProvider = {
  getMigrations: async () => (await import('../../migrations/index.ts')).migrations,
};

/**
 * The migrations by name only (migrations/names.ts), for {@link migrationStatus}: every read
 * command checks for pending ones, and needs no migration module for that (issue 39).
 */
const migrationNames: MigrationProvider = {
  getMigrations: async () =>
    Object.fromEntries(MIGRATION_NAMES.map((name): [string, Migration] => [name, notLoaded(name)])),
};

function notLoaded(name: string): Migration {
  return {
    up: () => Promise.reject(new Error(`migration ${name} was listed by name only, not loaded`)),
  };
}

export async function migrationStatus(db: Kysely<Database>): Promise<MigrationStatus> {
  const all = await (await migratorFor(db, migrationNames)).getMigrations();
  return {
    applied: all.filter((m) => m.executedAt !== undefined).map((m) => m.name),
    pending: all.filter((m) => m.executedAt === undefined).map((m) => m.name),
  };
}

/**
 * Applies every pending migration, forward only: paysync ships no down migrations, so a
 * production database is never rolled back by a command. Returns the names applied.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const { error, results } = await (await migratorFor(db, migrationModules)).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new MigrationError(failed?.migrationName, error);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
