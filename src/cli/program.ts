import { Command } from 'commander';
import { adjustCommand } from './commands/adjust.command.ts';
import { auditCommand } from './commands/audit.command.ts';
import { balancesCommand } from './commands/balances.command.ts';
import { reportCommand } from './commands/report.command.ts';
import { backfillCommand } from './commands/backfill.command.ts';
import { alertsCommand } from './commands/alerts.command.ts';
import { demoCommand } from './commands/demo.command.ts';
import { doctorCommand } from './commands/doctor.command.ts';
import { endpointsCommand } from './commands/endpoints.command.ts';
import { expectCommand } from './commands/expect.command.ts';
import { exportCommand } from './commands/export.command.ts';
import { closeCommand } from './commands/close.command.ts';
import { reopenCommand } from './commands/reopen.command.ts';
import { listCommand } from './commands/list.command.ts';
import { migrateCommand } from './commands/migrate.command.ts';
import { receiptCommand } from './commands/receipt.command.ts';
import { receiptsCommand } from './commands/receipts.command.ts';
import { scheduleCommand } from './commands/schedule.command.ts';
import { startCommand } from './commands/start.command.ts';
import { workCommand } from './commands/work.command.ts';
import { serveCommand } from './commands/serve.command.ts';
import { pruneCommand } from './commands/prune.command.ts';
import { replayCommand } from './commands/replay.command.ts';
import { runsCommand } from './commands/runs.command.ts';
import { sweepCommand } from './commands/sweep.command.ts';
import { showCommand } from './commands/show.command.ts';
import { simCommand } from './commands/sim.command.ts';
import { webhooksCommand } from './commands/webhooks.command.ts';
import { tenantsCommand } from './commands/tenants.command.ts';
import { commanderOutput } from './output.ts';

const HELP_FOOTER = `
Configuration comes from PAYSYNC_* environment variables or a .env file in the working
directory (real variables win). See README.md for every variable and its default.
Several sets of books: PAYSYNC_TENANTS_FILE lists them, --tenant picks one (docs/tenants.md).

Exit codes: 0 success, 1 the command failed, 2 bad usage or configuration.`;

/** The whole CLI: every command of the design, registered in one place. */
export function buildProgram(): Command {
  const program = new Command('paysync')
    .description(
      "keeps a merchant's books in step with the payment and payout service: webhooks in, state fetched, double-entry ledger",
    )
    .version(process.env.npm_package_version ?? '0.1.0', '-V, --version')
    .showHelpAfterError('(run with --help to see usage)')
    .option(
      '--tenant <name>',
      'the tenant of PAYSYNC_TENANTS_FILE to work on (or PAYSYNC_TENANT), required when it lists several, except by start, serve, work and schedule, which then serve them all; see docs/tenants.md',
    )
    .addHelpText('after', HELP_FOOTER)
    .hook('preAction', async (program, action) => {
      // Loaded when a command runs, not for --help: it reads the config and the tenants file.
      const { selectTenant } = await import('./tenant-selection.ts');
      selectTenant(program, action);
    });
  const commands = [
    migrateCommand(),
    doctorCommand(),
    simCommand(),
    startCommand(),
    serveCommand(),
    workCommand(),
    scheduleCommand(),
    demoCommand(),
    sweepCommand(),
    backfillCommand(),
    runsCommand(),
    receiptCommand(),
    receiptsCommand(),
    listCommand(),
    showCommand(),
    webhooksCommand(),
    endpointsCommand(),
    expectCommand(),
    replayCommand(),
    balancesCommand(),
    adjustCommand(),
    reportCommand(),
    auditCommand(),
    alertsCommand(),
    exportCommand(),
    closeCommand(),
    reopenCommand(),
    pruneCommand(),
    tenantsCommand(),
  ];
  for (const command of commands) {
    program.addCommand(command);
    // Each command's --help shows --tenant too.
    command.configureHelp({ showGlobalOptions: true });
    for (const sub of command.commands) sub.configureHelp({ showGlobalOptions: true });
  }
  // Commander's own lines (help, a usage error quoting the argument) go out like every human
  // line (src/cli/output.ts); addCommand does not pass the setting down, so each gets it.
  for (const command of [program, ...program.commands.flatMap((c) => [c, ...c.commands])]) {
    command.configureOutput(commanderOutput);
  }
  return program;
}
