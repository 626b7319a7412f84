import { Command } from 'commander';
import type { CheckResult, CheckStatus } from '../../doctor/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { ExitCode } from '../errors.ts';
import { checkEveryTenant } from './tenants.command.ts';
import { printJson, say } from '../output.ts';

const MARKS: Record<CheckStatus, string> = { ok: '✔', warn: '⚠', fail: '✖' };

function line(result: CheckResult, status: CheckStatus): string {
  const hint = result.hint ? ` → ${result.hint}` : '';
  return `${MARKS[status]} ${result.name.padEnd(8)} ${result.detail}${hint}`;
}

/** `paysync doctor [--json]`: one line per check, ✔, ⚠ or ✖ with a fix; exit 1 if any failed. */
export function doctorCommand(): Command {
  return new Command('doctor')
    .description(
      "check config, database (and PostgreSQL's autovacuum), Redis, the service, its webhook registration and the scheduled runs; one line each",
    )
    .option('--json', 'print one JSON document: ok, and each check with name, status, message')
    .addHelpText(
      'after',
      `
Each check is ✔ ok, ⚠ warn (nothing wrong yet, nothing proven either: no scheduled run yet, say)
or ✖ fail, with what to do about it.
With PAYSYNC_TENANTS_FILE listing several tenants: --tenant <name> checks that one; without it
every tenant is checked, as \`paysync tenants check\` does (docs/tenants.md).
--json prints {"ok": …, "checks": [{"name", "status": "ok"|"warn"|"fail", "message", "hint"?}]}
on stdout; a bad configuration is still one line on stderr.
Exit codes: 0 every check passed or warned, 1 at least one failed, 2 bad configuration.`,
    )
    .action(async (flags: { json?: boolean }, invoked: Command) => {
      const { tenantsServedTogether } = await import('../tenant-selection.ts');
      const together = tenantsServedTogether(invoked);
      if (together) return checkEveryTenant(together, flags);
      // A bad config is reported by the CLI's error boundary as one line naming the variable.
      const config = await cliConfig(invoked);
      // Loaded here, not at the top, so `paysync --help` and `paysync sim` start fast.
      const { runDoctorChecks, checkStatus } = await import('../../doctor/index.ts');
      const configCheck: CheckResult = {
        name: 'config',
        ok: true,
        detail: `environment ${config.environment}`,
      };
      if (!flags.json) say(line(configCheck, 'ok'));
      const results = [configCheck, ...(await runDoctorChecks(config, cliClock()))];
      const failedAny = results.some((r) => !r.ok);
      if (flags.json) {
        printJson({
          ok: !failedAny,
          checks: results.map((r) => ({
            name: r.name,
            status: checkStatus(r),
            message: r.detail,
            ...(r.hint ? { hint: r.hint } : {}),
          })),
        });
      } else {
        for (const result of results.slice(1)) say(line(result, checkStatus(result)));
      }
      if (failedAny) process.exitCode = ExitCode.failure;
    });
}
