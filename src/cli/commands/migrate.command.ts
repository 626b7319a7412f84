import { Command } from 'commander';
import { commandContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { say } from '../output.ts';

/** `paysync migrate`: applies pending migrations, forward only, and says what it did. */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply pending database migrations (forward only; safe to run twice)')
    .action(async () => {
      const { config } = await commandContext('migrate');
      // Loaded here, not at the top, so `paysync --help` and `paysync sim` start fast.
      const { migrateDatabaseAt, MigrateDatabaseError } = await import('../../db/index.ts');
      try {
        const { displayUrl, applied, all } = await migrateDatabaseAt(config.databaseUrl);
        if (applied.length === 0) {
          say(
            `nothing to apply: ${displayUrl} is up to date (${all.length} migration${all.length === 1 ? '' : 's'} applied, latest ${all.at(-1) ?? 'none'})`,
          );
        } else {
          for (const name of applied) say(`applied ${name}`);
          say(`${displayUrl} is up to date (${all.length} applied)`);
        }
      } catch (error) {
        if (!(error instanceof MigrateDatabaseError)) throw error;
        throw new CliError(
          `migrate: cannot migrate ${error.displayUrl}: ${error.reason} → check PAYSYNC_DATABASE_URL and that the database is running`,
        );
      }
    });
}
