import { Command } from 'commander';
import type { CheckResult } from '../../doctor/index.ts';
import type { Tenant, Tenants } from '../../tenants/index.ts';
import { cliClock } from '../context.ts';
import { ExitCode } from '../errors.ts';
import { say, printJson } from '../output.ts';

interface JsonFlag {
  json?: boolean;
}

const FILE_HELP = `
The tenants come from PAYSYNC_TENANTS_FILE (docs/tenants.md); without it there is one tenant,
"default", built from the PAYSYNC_* variables. A bad file stops the command with one line
naming the file, the line, the tenant and the field (exit 2).`;

const mark = (ok: boolean) => (ok ? '✔' : '✖');

/**
 * Every tenant of the process's environment, read when a command runs (not for `paysync
 * --help`): `tenants` works on them all, so no tenant of it was chosen.
 */
async function loadTenants(): Promise<Tenants> {
  const { readEnvironment } = await import('../../config/index.ts');
  const tenants = await import('../../tenants/index.ts');
  return tenants.loadTenants(readEnvironment());
}

/** The database as a person reads it: a PostgreSQL schema by name, any password hidden. */
async function databaseOf(url: string): Promise<string> {
  const { hidePasswordInUrl } = await import('../../config/index.ts');
  const { splitSearchPath } = await import('../../db/index.ts');
  const split = splitSearchPath(url);
  return split
    ? `${hidePasswordInUrl(split.server)} schema ${split.schema}`
    : hidePasswordInUrl(url);
}

async function describe(tenant: Tenant) {
  const config = tenant.config;
  return {
    tenant: tenant.name,
    environment: config.environment,
    merchantId: config.merchantId ?? null,
    serviceUrl: config.upstreamUrl ?? null,
    database: await databaseOf(config.databaseUrl),
    queuePrefix: config.processing.queuePrefix,
    exportDir: config.exports.dir,
    receiptsDir: config.receipts.dir,
  };
}

function source(tenants: Tenants): string {
  return tenants.file ?? 'the PAYSYNC_* variables (no PAYSYNC_TENANTS_FILE)';
}

function listCommand(): Command {
  return new Command('list')
    .description('each tenant: its account, its database and whether that database is migrated')
    .option('--json', 'print a JSON array instead of a table')
    .addHelpText(
      'after',
      `${FILE_HELP}
Columns: TENANT, ENV, MERCHANT, DATABASE and its STATE (up to date, migrations pending, not
created yet, or why it cannot be opened). Exit codes: 0 listed, 2 a bad tenants file.

Examples:
  $ paysync tenants list
  $ paysync tenants list --json | jq -r '.[] | select(.databaseReady | not) | .tenant'`,
    )
    .action(async (flags: JsonFlag) => {
      const tenants = await loadTenants();
      const { checkDatabase } = await import('../../doctor/index.ts');
      const rows = await Promise.all(
        tenants.tenants.map(async (tenant) => {
          const checked = await checkDatabase(tenant.config.databaseUrl);
          // A schema never migrated has no bookkeeping table: say so in words.
          const { splitSearchPath } = await import('../../db/index.ts');
          const schema = splitSearchPath(tenant.config.databaseUrl)?.schema;
          const database =
            schema && /"kysely_migration" does not exist/.test(checked.detail)
              ? { ...checked, detail: `schema ${schema} has no tables yet` }
              : checked;
          // The doctor's fix names `paysync migrate`; here every tenant is migrated at once.
          const hint = /pending|does not exist|has no tables/.test(database.detail)
            ? 'run `paysync tenants migrate`'
            : database.hint;
          return {
            ...(await describe(tenant)),
            databaseReady: database.ok,
            databaseState: { ...database, hint },
          };
        }),
      );
      if (flags.json) {
        printJson(
          rows.map(({ databaseState, ...row }) => ({
            ...row,
            databaseState: databaseState.ok
              ? databaseState.detail
              : `${databaseState.detail} → ${databaseState.hint}`,
          })),
        );
        return;
      }
      const { renderTable } = await import('../format/render-table.ts');
      say(`tenants from ${source(tenants)}:`);
      say(
        renderTable(
          [
            { header: 'TENANT', value: (row) => row.tenant },
            { header: 'ENV', value: (row) => row.environment },
            { header: 'MERCHANT', value: (row) => row.merchantId ?? '(not set)' },
            { header: 'DATABASE', value: (row) => row.database },
            {
              header: 'STATE',
              value: (row) =>
                row.databaseReady
                  ? `${mark(true)} up to date`
                  : `${mark(false)} ${row.databaseState.detail.replace(/ \(.*\)$/, '')} → ${row.databaseState.hint}`,
            },
          ],
          rows,
        ),
      );
    });
}

function checkCommand(): Command {
  return new Command('check')
    .description(
      'doctor for every tenant: its config, database, Redis, service credentials and scheduled runs',
    )
    .option('--json', 'print a JSON array, one entry per tenant with its checks')
    .addHelpText(
      'after',
      `${FILE_HELP}
Each tenant's checks run side by side; one tenant failing never stops the others. Exit codes:
0 every tenant ready, 1 at least one check failed (the summary names the tenants), 2 a bad
tenants file.

Examples:
  $ paysync tenants check
  $ paysync tenants check --json | jq '.[] | select(.ok | not)'`,
    )
    .action(async (flags: JsonFlag) => checkEveryTenant(await loadTenants(), flags));
}

/**
 * Doctor's checks for every tenant, side by side: a line per check under each tenant (or JSON),
 * and a summary naming those with problems; exit code 1 when one has. `paysync tenants check`,
 * and `paysync doctor` without --tenant on a file listing several.
 */
export async function checkEveryTenant(tenants: Tenants, flags: JsonFlag): Promise<void> {
  const { runDoctorChecks, checkStatus } = await import('../../doctor/index.ts');
  const now = cliClock();
  const results = await Promise.all(
    tenants.tenants.map(async (tenant) => {
      const checks: CheckResult[] = [
        {
          name: 'config',
          ok: true,
          detail: `environment ${tenant.config.environment}, queue prefix ${tenant.config.processing.queuePrefix}`,
        },
        ...(await runDoctorChecks(tenant.config, now)),
      ];
      return { tenant: tenant.name, ok: checks.every((check) => check.ok), checks };
    }),
  );
  const failing = results.filter((result) => !result.ok).map((result) => result.tenant);
  if (failing.length > 0) process.exitCode = ExitCode.failure;
  if (flags.json) {
    // Each check also in `doctor --json`'s words: status ok/warn/fail and message.
    printJson(
      results.map((result) => ({
        ...result,
        checks: result.checks.map((check) => ({
          ...check,
          status: checkStatus(check),
          message: check.detail,
        })),
      })),
    );
    return;
  }
  say(`tenants from ${source(tenants)}:`);
  for (const result of results) {
    say(`${mark(result.ok)} ${result.tenant}`);
    for (const check of result.checks) {
      const hint = check.hint ? ` → ${check.hint}` : '';
      const checkMark = check.ok && check.warning ? '⚠' : mark(check.ok);
      say(`  ${checkMark} ${check.name.padEnd(8)} ${check.detail}${hint}`);
    }
  }
  say(
    failing.length === 0
      ? `${results.length} tenant(s) checked: all ready`
      : `${results.length} tenant(s) checked: ${failing.length} with problems (${failing.join(', ')})`,
  );
}

function migrateCommand(): Command {
  return new Command('migrate')
    .description("apply pending migrations to every tenant's database (creating it, or its schema)")
    .option('--json', 'print a JSON array, one entry per tenant')
    .addHelpText(
      'after',
      `${FILE_HELP}
Tenants are migrated one after another; one that fails (its database down, say) is reported and
the others are still migrated. Forward only, safe to run twice. Exit codes: 0 every tenant up to
date, 1 at least one could not be migrated, 2 a bad tenants file.

Examples:
  $ paysync tenants migrate
  $ PAYSYNC_TENANTS_FILE=./tenants.yaml paysync tenants migrate --json`,
    )
    .action(async (flags: JsonFlag) => {
      const tenants = await loadTenants();
      const { migrateDatabaseAt, MigrateDatabaseError } = await import('../../db/index.ts');
      const results = [];
      for (const tenant of tenants.tenants) {
        try {
          const outcome = await migrateDatabaseAt(tenant.config.databaseUrl);
          results.push({
            tenant: tenant.name,
            ok: true,
            database: outcome.displayUrl,
            applied: outcome.applied,
            latest: outcome.all.at(-1) ?? null,
          });
          if (!flags.json) {
            say(
              `✔ ${tenant.name}: ${outcome.applied.length === 0 ? 'nothing to apply' : `applied ${outcome.applied.length}`}, ${outcome.displayUrl} is up to date (${outcome.all.length} applied)`,
            );
          }
        } catch (error) {
          if (!(error instanceof MigrateDatabaseError)) throw error;
          results.push({
            tenant: tenant.name,
            ok: false,
            database: error.displayUrl,
            error: error.reason,
          });
          if (!flags.json) {
            say(
              `✖ ${tenant.name}: cannot migrate ${error.displayUrl}: ${error.reason} → check the tenant's database in ${source(tenants)} and that it is running`,
            );
          }
        }
      }
      const failing = results.filter((result) => !result.ok).map((result) => result.tenant);
      if (failing.length > 0) process.exitCode = ExitCode.failure;
      if (flags.json) {
        printJson(results);
        return;
      }
      say(
        failing.length === 0
          ? `${results.length} tenant(s) up to date`
          : `${results.length - failing.length} of ${results.length} tenant(s) up to date; not migrated: ${failing.join(', ')}`,
      );
    });
}

/** `paysync tenants list|check|migrate`: every tenant of the tenants file at once. */
export function tenantsCommand(): Command {
  return new Command('tenants')
    .description('several sets of books (PAYSYNC_TENANTS_FILE): list, check or migrate them all')
    .addCommand(listCommand())
    .addCommand(checkCommand())
    .addCommand(migrateCommand());
}
