import { Command } from 'commander';
import type { CheckResult } from '../../doctor/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { ExitCode } from '../errors.ts';
import { checkEveryTenant } from './tenants.command.ts';
import { say } from '../output.ts';

function line(result: CheckResult): string {
  const mark = result.ok ? '✔' : '✖';
  const hint = result.hint ? ` → ${result.hint}` : '';
  return `${mark} ${result.name.padEnd(8)} ${result.detail}${hint}`;
}

/** `paysync doctor`: one line per check, ✔ or ✖ with a fix; non-zero exit if any failed. */
export function doctorCommand(): Command {
  return new Command('doctor')
    .description('check config, database, Redis and the service credentials; one line each')
    .addHelpText(
      'after',
      `
With PAYSYNC_TENANTS_FILE listing several tenants: --tenant <name> checks that one; without it
every tenant is checked, as \`paysync tenants check\` does (docs/tenants.md).
Exit codes: 0 every check passed, 1 at least one failed, 2 bad configuration.`,
    )
    .action(async () => {
      const { tenantsServedTogether } = await import('../tenant-selection.ts');
      const together = tenantsServedTogether();
      if (together) return checkEveryTenant(together, {});
      // A bad config is reported by the CLI's error boundary as one line naming the variable.
      const config = await cliConfig();
      say(line({ name: 'config', ok: true, detail: `environment ${config.environment}` }));
      // Loaded here, not at the top, so `paysync --help` and `paysync sim` start fast.
      const { runDoctorChecks } = await import('../../doctor/index.ts');
      const results = await runDoctorChecks(config, cliClock());
      for (const result of results) say(line(result));
      if (results.some((r) => !r.ok)) process.exitCode = ExitCode.failure;
    });
}
