import { Command } from 'commander';
import type { DatabaseHandle } from '../../db/index.ts';
import { reasonOf } from '../../error-reason.ts';
import { commandContext } from '../context.ts';
import { CliError } from '../errors.ts';

/** `paysync migrate`: applies pending migrations, forward only, and says what it did. */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply pending database migrations (forward only; safe to run twice)')
    .action(async () => {
      const { config } = commandContext('migrate');
      // Loaded here, not at the top, so `paysync --help` and `paysync sim` start fast.
      const {
        createDatabase,
        migrateToLatest,
        migrationStatus,
        MigrationError,
        DatabaseOpenError,
      } = await import('../../db/index.ts');
      let handle: DatabaseHandle | undefined;
      try {
        handle = createDatabase(config.databaseUrl);
        const applied = await migrateToLatest(handle.db);
        const { applied: all } = await migrationStatus(handle.db);
        if (applied.length === 0) {
          console.log(
            `nothing to apply: ${handle.displayUrl} is up to date (${all.length} migration${all.length === 1 ? '' : 's'} applied, latest ${all.at(-1) ?? 'none'})`,
          );
        } else {
          for (const name of applied) console.log(`applied ${name}`);
          console.log(`${handle.displayUrl} is up to date (${all.length} applied)`);
        }
      } catch (error) {
        const where =
          handle?.displayUrl ??
          (error instanceof DatabaseOpenError ? error.displayUrl : 'the database');
        const reason =
          error instanceof DatabaseOpenError
            ? error.reason
            : error instanceof MigrationError
              ? error.message
              : reasonOf(error);
        throw new CliError(
          `migrate: cannot migrate ${where}: ${reason} → check PAYSYNC_DATABASE_URL and that the database is running`,
        );
      } finally {
        await handle?.close().catch(() => undefined);
      }
    });
}
