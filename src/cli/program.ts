import { Command } from 'commander';
import { commanderOutput } from './output.ts';

const HELP_FOOTER = `
Configuration comes from PAYSYNC_* environment variables or a .env file in the working
directory (real variables win). docs/configuration.md lists every variable and its default.
Several sets of books: PAYSYNC_TENANTS_FILE lists them, --tenant picks one (docs/tenants.md).

Exit codes: 0 success, 1 the command failed, 2 bad usage or configuration.`;

/**
 * Every command, in the order `paysync --help` lists them, each module loaded only when the
 * program needs it: `paysync show …` builds the show command alone (issue 39).
 */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  migrate: async () => (await import('./commands/migrate.command.ts')).migrateCommand(),
  doctor: async () => (await import('./commands/doctor.command.ts')).doctorCommand(),
  sim: async () => (await import('./commands/sim.command.ts')).simCommand(),
  start: async () => (await import('./commands/start.command.ts')).startCommand(),
  serve: async () => (await import('./commands/serve.command.ts')).serveCommand(),
  work: async () => (await import('./commands/work.command.ts')).workCommand(),
  schedule: async () => (await import('./commands/schedule.command.ts')).scheduleCommand(),
  demo: async () => (await import('./commands/demo.command.ts')).demoCommand(),
  sweep: async () => (await import('./commands/sweep.command.ts')).sweepCommand(),
  backfill: async () => (await import('./commands/backfill.command.ts')).backfillCommand(),
  runs: async () => (await import('./commands/runs.command.ts')).runsCommand(),
  receipt: async () => (await import('./commands/receipt.command.ts')).receiptCommand(),
  receipts: async () => (await import('./commands/receipts.command.ts')).receiptsCommand(),
  list: async () => (await import('./commands/list.command.ts')).listCommand(),
  show: async () => (await import('./commands/show.command.ts')).showCommand(),
  webhooks: async () => (await import('./commands/webhooks.command.ts')).webhooksCommand(),
  endpoints: async () => (await import('./commands/endpoints.command.ts')).endpointsCommand(),
  expect: async () => (await import('./commands/expect.command.ts')).expectCommand(),
  replay: async () => (await import('./commands/replay.command.ts')).replayCommand(),
  balances: async () => (await import('./commands/balances.command.ts')).balancesCommand(),
  adjust: async () => (await import('./commands/adjust.command.ts')).adjustCommand(),
  report: async () => (await import('./commands/report.command.ts')).reportCommand(),
  audit: async () => (await import('./commands/audit.command.ts')).auditCommand(),
  alerts: async () => (await import('./commands/alerts.command.ts')).alertsCommand(),
  export: async () => (await import('./commands/export.command.ts')).exportCommand(),
  close: async () => (await import('./commands/close.command.ts')).closeCommand(),
  reopen: async () => (await import('./commands/reopen.command.ts')).reopenCommand(),
  prune: async () => (await import('./commands/prune.command.ts')).pruneCommand(),
  tenants: async () => (await import('./commands/tenants.command.ts')).tenantsCommand(),
};

/**
 * The whole CLI: every command of the design, registered in one place. With `only`, the first
 * argument of a run (`show` in `paysync show tr_…`), and when it names a command, the program
 * holds that command alone, so the other commands' modules are not loaded; otherwise (no
 * command, `--help`, `help`, an option first, a typo) it holds them all, for the help and
 * commander's suggestions.
 */
export async function buildProgram(only?: string): Promise<Command> {
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
  const names =
    only !== undefined && Object.hasOwn(COMMANDS, only) ? [only] : Object.keys(COMMANDS);
  const commands = await Promise.all(names.map((name) => COMMANDS[name]!()));
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
