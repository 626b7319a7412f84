import { Command, InvalidArgumentError } from 'commander';
import { cliClock, cliConfig } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { groundTruthRefusalLine } from '../format/refusal-lines.ts';
import { parseTime, TIME_FORMS } from '../input/parse-time.ts';
import { say, printJson } from '../output.ts';

type Since = 'last-clean' | Date;

/** `--since`: `last-clean`, or any time form the other commands take. */
function sinceOption(value: string): Since {
  if (value.trim() === 'last-clean') return 'last-clean';
  let at: Date;
  try {
    at = parseTime(value, '--since', cliClock());
  } catch (error) {
    // parseTime's reason (a month 13, a 31 February) and the time forms, plus the other word.
    if (error instanceof InvalidArgumentError) {
      throw new InvalidArgumentError(`${error.message}, or last-clean`);
    }
    throw error;
  }
  if (at.getTime() > cliClock().getTime()) {
    throw new InvalidArgumentError(
      `--since "${value}" is in the future: use last-clean or a time in the past`,
    );
  }
  return at;
}

/** `paysync audit [--since last-clean|<time>] [--json] [--truth file|url]`: judges the books. */
export function auditCommand(): Command {
  return new Command('audit')
    .description(
      'check the books from first principles (balanced journals, no double booking, reversals, coverage), in full or only what changed since the last clean audit, optionally against the simulator’s ground truth',
    )
    .option('--json', 'print the whole report as JSON')
    .option(
      '--since <last-clean|time>',
      `check only what changed since the last clean audit (last-clean) or since a time (${TIME_FORMS}); without it, every row`,
      sinceOption,
    )
    .option(
      '--truth <file|url>',
      "the simulator's ground truth: a JSON file saved from GET /__sim/ground-truth, or that URL (full audit only)",
    )
    .addHelpText(
      'after',
      `
Without --since the audit reads every row (the full audit). --since last-clean reads only what
changed since the last clean audit: items synced or booked since, their every journal, new
inbox rows and rows processed since. With no clean audit on record it runs the full audit. Every
clean audit, full or incremental, is recorded in the auditor's own table as the next starting point; an
audit that finds a violation records nothing. What --since does not see: docs/audit.md.

The report says which mode ran and what it covered (--json: mode, range, scope, watermark,
recordedRun).

Exit codes: 0 clean, 1 at least one violation (each printed with its ids) or the database
cannot be read, 2 bad flags (an unreadable --truth, a bad --since, --since with --truth).

Examples:
  $ paysync audit
  $ paysync audit --since last-clean
  $ paysync audit --since 2030-01-10T00:00:00Z --json | jq '.range'
  $ paysync audit --truth http://127.0.0.1:4010/__sim/ground-truth
  $ paysync audit --json | jq '.violations[] | .check'`,
    )
    .action(async (flags: { json?: boolean; truth?: string; since?: Since }, invoked: Command) => {
      if (flags.since !== undefined && flags.truth !== undefined) {
        throw new CliError(
          'audit: --truth compares every item and balance, so it needs the full audit: drop --since or --truth',
          ExitCode.usage,
        );
      }
      const config = await cliConfig(invoked);
      const audit = await import('../../audit/index.ts');
      let truth;
      if (flags.truth !== undefined) {
        try {
          truth = await audit.loadGroundTruth(flags.truth);
        } catch (error) {
          if (error instanceof audit.GroundTruthError) {
            const { line, exitCode } = groundTruthRefusalLine(error.refusal);
            throw new CliError(`audit: ${line}`, exitCode);
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
          record: true,
          ...(truth ? { truth } : {}),
          ...(flags.since !== undefined ? { since: flags.since } : {}),
        });
      } finally {
        await handle.close().catch(() => undefined);
      }
      if (flags.json) printJson(report);
      else say(audit.formatAudit(report));
      process.exitCode = report.clean ? ExitCode.ok : ExitCode.failure;
    });
}
