import { PostgresAdapter, type Kysely } from 'kysely';
import type { DialectName } from './create-database.ts';

/** Which dialect an open database speaks, for the few statements that differ. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database type will do
export function dialectOfDb(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
