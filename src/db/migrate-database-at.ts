import { hidePasswordInUrl } from '../config/index.ts';
import { reasonOf } from '../error-reason.ts';
import { createDatabase, DatabaseOpenError } from './create-database.ts';
import { ensureSearchPathSchema } from './ensure-schema.ts';
import { currentSchema, migrateToLatest, MigrationError, migrationStatus } from './migrate.ts';
import { isPermissionDenied } from './postgres-rights.ts';

export interface MigrationOutcome {
  /** The database, with any password hidden. */
  readonly displayUrl: string;
  /** What this call applied, in order. */
  readonly applied: readonly string[];
  /** Every migration the database now has. */
  readonly all: readonly string[];
}

/** The database at a URL could not be migrated; `displayUrl` and `reason` are safe to print. */
export class MigrateDatabaseError extends Error {
  override readonly name = 'MigrateDatabaseError';
  constructor(
    readonly displayUrl: string,
    readonly reason: string,
    /** PostgreSQL refused the role a right (42501): another role must migrate, or be granted it. */
    readonly refused = false,
  ) {
    super(`cannot migrate ${displayUrl}: ${reason}`);
  }
}

/**
 * Opens the database at `url` (creating a SQLite file, or the PostgreSQL schema its search_path
 * names when it is missing), applies the pending migrations, forward only, and closes it. Safe
 * to run twice.
 */
export async function migrateDatabaseAt(url: string): Promise<MigrationOutcome> {
  let displayUrl = hidePasswordInUrl(url);
  try {
    const handle = createDatabase(url);
    displayUrl = handle.displayUrl;
    try {
      // A schema made beforehand for its owner (docs/operations.md) is used as it is: creating
      // it "if not exists" would need CREATE on the whole database, which that owner lacks.
      if (handle.dialect === 'sqlite' || !(await currentSchema(handle.db))) {
        await ensureSearchPathSchema(url);
      }
      const applied = await migrateToLatest(handle.db);
      const { applied: all } = await migrationStatus(handle.db);
      return { displayUrl, applied, all };
    } finally {
      await handle.close().catch(() => undefined);
    }
  } catch (error) {
    if (error instanceof DatabaseOpenError)
      throw new MigrateDatabaseError(error.displayUrl, error.reason);
    const cause = error instanceof MigrationError ? error.reason : error;
    throw new MigrateDatabaseError(
      displayUrl,
      error instanceof MigrationError ? error.message : reasonOf(error),
      isPermissionDenied(cause),
    );
  }
}
