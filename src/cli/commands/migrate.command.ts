import { Command } from 'commander';
import { commandContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { printJson, say } from '../output.ts';

/** `paysync migrate [--json]`: applies pending migrations, forward only, and says what it did. */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply pending database migrations (forward only; safe to run twice)')
    .option('--json', 'print one JSON document: the database, what was applied, the latest')
    .addHelpText(
      'after',
      `
--json prints {"database", "applied": [names applied now], "migrations": <count applied in
all>, "latest": <name>|null} on stdout; a failure is still one line on stderr.

Examples:
  $ paysync migrate
  $ paysync migrate --json | jq '.applied | length'

Exit codes: 0 up to date, 1 the database refused or cannot be reached, 2 bad configuration.`,
    )
    .action(async (flags: { json?: boolean }, invoked: Command) => {
      const { config } = await commandContext('migrate', invoked);
      // Loaded here, not at the top, so `paysync --help` and `paysync sim` start fast.
      const { migrateDatabaseAt, MigrateDatabaseError, POSTGRES_RIGHTS_DOC } =
        await import('../../db/index.ts');
      try {
        const { displayUrl, applied, all } = await migrateDatabaseAt(config.databaseUrl);
        if (flags.json) {
          printJson({
            database: displayUrl,
            applied,
            migrations: all.length,
            latest: all.at(-1) ?? null,
          });
        } else if (applied.length === 0) {
          say(
            `nothing to apply: ${displayUrl} is up to date (${all.length} migration${all.length === 1 ? '' : 's'} applied, latest ${all.at(-1) ?? 'none'})`,
          );
        } else {
          for (const name of applied) say(`applied ${name}`);
          say(`${displayUrl} is up to date (${all.length} applied)`);
        }
      } catch (error) {
        if (!(error instanceof MigrateDatabaseError)) throw error;
        const hint = error.refused
          ? `run \`paysync migrate\` as the role that owns the schema (${POSTGRES_RIGHTS_DOC})`
          : 'check PAYSYNC_DATABASE_URL and that the database is running';
        throw new CliError(
          `migrate: cannot migrate ${error.displayUrl}: ${error.reason} → ${hint}`,
        );
      }
    });
}
