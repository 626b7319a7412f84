import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config/index.ts';
import type { DatabaseHandle } from '../db/index.ts';
import { reasonOf } from '../error-reason.ts';
import { CliError } from './errors.ts';

/**
 * How long a command waits for the daemon's write to finish (SQLite): a command run while the
 * daemon books traffic waits its turn rather than failing "database is locked" (the daemon's
 * own writes wait 5 s, src/db).
 */
const CLI_BUSY_TIMEOUT_MS = 30_000;

/**
 * Opens the daemon's database for a read command, refusing with one line (and creating
 * nothing) when the SQLite file is missing, the server is unreachable or migrations are
 * pending. `what` names the command in the message.
 */
export async function openLedgerDatabase(config: Config, what: string): Promise<DatabaseHandle> {
  const {
    createDatabase,
    DatabaseOpenError,
    isPermissionDenied,
    migrationStatus,
    pendingMigrationsHint,
    POSTGRES_RIGHTS_DOC,
  } = await import('../db/index.ts');
  if (config.databaseUrl.startsWith('sqlite:')) {
    const file = config.databaseUrl.slice('sqlite:'.length);
    if (file !== ':memory:' && !existsSync(resolve(file))) {
      throw new CliError(
        `${what}: no database at sqlite:${resolve(file)} → set PAYSYNC_DATABASE_URL to the daemon's database, or run \`paysync migrate\` to create it`,
      );
    }
  }
  let handle: DatabaseHandle;
  try {
    handle = createDatabase(config.databaseUrl, { busyTimeoutMs: CLI_BUSY_TIMEOUT_MS });
  } catch (error) {
    if (!(error instanceof DatabaseOpenError)) throw error;
    throw new CliError(
      `${what}: cannot read ${error.displayUrl}: ${error.reason} → set PAYSYNC_DATABASE_URL to the daemon's database file`,
    );
  }
  try {
    const { pending } = await migrationStatus(handle.db);
    if (pending.length > 0) {
      throw new CliError(
        `${what}: ${handle.displayUrl} has ${pending.length} pending migration${pending.length === 1 ? '' : 's'} (${pending.join(', ')}) → ${await pendingMigrationsHint(handle.db)}`,
      );
    }
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    if (error instanceof CliError) throw error;
    const hint = isPermissionDenied(error)
      ? `grant this role its rights on paysync's schema and tables (${POSTGRES_RIGHTS_DOC})`
      : 'check PAYSYNC_DATABASE_URL and that the database is running';
    throw new CliError(`${what}: cannot read ${handle.displayUrl}: ${reasonOf(error)} → ${hint}`);
  }
}
