export type { Database } from './database.ts';
export {
  createDatabase,
  DatabaseOpenError,
  dialectOf,
  parseSafeInt8,
  UnsafeIntegerError,
  type DatabaseHandle,
  type DatabaseOptions,
  type DialectName,
} from './create-database.ts';
export {
  migrateToLatest,
  migrationStatus,
  MigrationError,
  type MigrationStatus,
} from './migrate.ts';
