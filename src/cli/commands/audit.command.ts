import { Command } from 'commander';
import { loadConfig } from '../../config/index.ts';
import { cliClock } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';

/** `paysync audit [--json] [--truth file|url]`: judges the books from first principles. */
export function auditCommand(): Command {
  return new Command('audit')
    .description(
      'check the books from first principles (balanced journals, no double booking, reversals, coverage), optionally against the simulator’s ground truth',
    )
    .option('--json', 'print the whole report as JSON')
    .option(
      '--truth <file|url>',
      "the simulator's ground truth: a JSON file saved from GET /__sim/ground-truth, or that URL",
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 clean, 1 at least one violation (each printed with its ids) or the database
cannot be read, 2 bad flags (an unreadable --truth).

Examples:
  $ paysync audit
  $ paysync audit --truth http://127.0.0.1:4010/__sim/ground-truth
  $ paysync audit --json | jq '.violations[] | .check'`,
    )
    .action(async (flags: { json?: boolean; truth?: string }) => {
      const config = loadConfig();
      const audit = await import('../../audit/index.ts');
      let truth;
      if (flags.truth !== undefined) {
        try {
          truth = await audit.loadGroundTruth(flags.truth);
        } catch (error) {
          if (error instanceof audit.GroundTruthError) {
            throw new CliError(`audit: ${error.message}`, ExitCode.usage);
          }
          throw error;
        }
      }
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const handle = await openLedgerDatabase(config, 'audit');
      let report;
      try {
        report = await audit.runAudit(handle.db, {
          mode: config.environment,
          now: cliClock,
          ...(truth ? { truth } : {}),
        });
      } finally {
        await handle.close().catch(() => undefined);
      }
      console.log(flags.json ? JSON.stringify(report, null, 2) : audit.formatAudit(report));
      process.exitCode = report.clean ? ExitCode.ok : ExitCode.failure;
    });
}
