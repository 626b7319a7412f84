export type { Executor } from './executor.ts';
export type { Database } from './database.ts';
export { dialectOfDb } from './dialect-of-db.ts';
export { chunksOf, runBulk, type BulkStatement } from './bulk-statement.ts';
export {
  createDatabase,
  DatabaseOpenError,
  dialectOf,
  observeQueries,
  parseSafeInt8,
  sqliteConnectionOf,
  UnsafeIntegerError,
  type DatabaseHandle,
  type DatabaseOptions,
  type DialectName,
  type QueryObserver,
} from './create-database.ts';
export { ensureSearchPathSchema } from './ensure-schema.ts';
export { splitSearchPath } from './schema-pool.ts';
export {
  migrateDatabaseAt,
  MigrateDatabaseError,
  type MigrationOutcome,
} from './migrate-database-at.ts';
export {
  migrateToLatest,
  migrationStatus,
  MigrationError,
  type MigrationStatus,
} from './migrate.ts';
export {
  prunableRows,
  type PrunableRows,
  type PrunableTable,
  type PruneBatch,
} from './prunable-rows.ts';
export { prunableTable, type PruneRule } from './prunable-table.ts';
export {
  isPermissionDenied,
  pendingMigrationsHint,
  POSTGRES_RIGHTS_DOC,
  schemaAccess,
  type SchemaAccess,
} from './postgres-rights.ts';
export { autovacuumSettings, type AutovacuumSettings } from './autovacuum-settings.ts';
export { isDatabaseUnavailable } from './database-unavailable.ts';
