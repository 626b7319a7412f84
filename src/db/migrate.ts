import { Migrator, sql, type Kysely } from 'kysely';
import { migrations } from '../../migrations/index.ts';
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
async function migratorFor(db: Kysely<Database>): Promise<Migrator> {
  const schema = dialectOfDb(db) === 'postgres' ? await currentSchema(db) : undefined;
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  const result = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(
    db,
  );
  return result.rows[0]?.schema ?? undefined;
}

export async function migrationStatus(db: Kysely<Database>): Promise<MigrationStatus> {
  const all = await retryingVanishedSchemas(db, async () =>
    (await migratorFor(db)).getMigrations(),
  );
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
  return retryingVanishedSchemas(db, async () => {
    const { error, results } = await (await migratorFor(db)).migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error');
      throw new MigrationError(failed?.migrationName, error);
    }
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  });
}

async function retryingVanishedSchemas<T>(
  db: Kysely<Database>,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let n = 1; ; n += 1) {
    try {
      return await attempt();
    } catch (error) {
      const cause = error instanceof MigrationError ? error.reason : error;
      if (n >= OTHER_SCHEMA_ATTEMPTS || !(await anotherSchemaVanished(db, cause))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * n));
    }
  }
}

const OTHER_SCHEMA_ATTEMPTS = 20;

/**
 * kysely's migrator finds its own tables by introspecting every table of every schema in the
 * database (calling `pg_get_serial_sequence` on each). If another schema is dropped while that
 * query runs (another paysync on the same server, parallel test files), it fails with 3F000
 * naming that other schema. Nothing of ours was touched: the check runs before the migration
 * lock, and each migration runs in its own transaction, so trying again is safe.
 */
async function anotherSchemaVanished(db: Kysely<Database>, error: unknown): Promise<boolean> {
  if (dialectOfDb(db) !== 'postgres') return false;
  const code = (error as { code?: unknown } | null)?.code;
  const message = String((error as { message?: unknown } | null)?.message ?? '');
  // 3F000 when the schema went first, 42P01 when a table of it did.
  const named =
    code === '3F000'
      ? /^schema "(.+)" does not exist$/.exec(message)?.[1]
      : code === '42P01'
        ? /^relation "([^".]+)\.[^"]+" does not exist$/.exec(message)?.[1]
        : undefined;
  return named !== undefined && named !== (await currentSchema(db));
}
