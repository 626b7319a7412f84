import { PostgresAdapter, type CreateTableBuilder, type Kysely } from 'kysely';

/*
 * Helpers shared by the migrations, kept beside them and importing nothing from src/: a shipped
 * migration must run the same way for ever, whatever the live code becomes. Change a helper
 * only in a way every migration already shipped still runs the same; otherwise add a new one.
 */

type DialectName = 'sqlite' | 'postgres';

/** Which dialect a migration runs on, so one migration file serves both. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database type will do
export function dialectOfDb(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Column types that differ by dialect. Money is always a 64-bit integer, never a float. */
export function columnTypes(db: Kysely<unknown>) {
  const postgres = dialectOfDb(db) === 'postgres';
  return {
    bytes: postgres ? ('bytea' as const) : ('blob' as const),
    money: 'bigint' as const,
  };
}

/** An auto-incrementing 64-bit primary key named `id`, on either dialect. */
export function withIdColumn<T extends string>(
  db: Kysely<unknown>,
  table: CreateTableBuilder<T, never>,
): CreateTableBuilder<T, 'id'> {
  return dialectOfDb(db) === 'postgres'
    ? table.addColumn('id', 'bigint', (col) => col.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement());
}
