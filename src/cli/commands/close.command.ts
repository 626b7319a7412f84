import { userInfo } from 'node:os';
import { Command, Option } from 'commander';
import { cliClock, cliConfig } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { periodRefusalLine } from '../format/refusal-lines.ts';
import { periodOption } from '../input/parse-period.ts';
import { printJson, say } from '../output.ts';

/** `paysync close --period YYYY-MM`: freezes a month's books and its export. */
export function closeCommand(): Command {
  return new Command('close')
    .description(
      'close a month: freeze its export, and book later changes to it in the next open month',
    )
    .addOption(
      new Option('--period <YYYY-MM>', 'the month, in PAYSYNC_BOOKS_TIMEZONE')
        .makeOptionMandatory()
        .argParser(periodOption),
    )
    .addOption(
      new Option('--environment <env>', 'live or sandbox (default: PAYSYNC_ENVIRONMENT)').choices([
        'live',
        'sandbox',
      ]),
    )
    .option('--force', 'close although some day is not RECONCILED (needs --reason)')
    .option('--reason <text>', 'why: recorded with the close')
    .option('--json', 'print one JSON document: the closed month and its frozen files')
    .addHelpText(
      'after',
      `
Every day of the month must have a stored RECONCILED verdict (paysync report). The month's
export in each PAYSYNC_EXPORT_FORMATS format is written once to PAYSYNC_EXPORT_DIR/YYYY/MM/
paysync-YYYY-MM.<ext>; its sha256 is kept, and re-exporting the month gives those bytes.

Examples:
  $ paysync close --period 2026-11
  $ paysync close --period 2026-11 --force --reason "bank fee dispute settled out of band"
  $ paysync close --period 2026-11 --json | jq -r '.exports[].file'

--json prints {"period", "environment", "window": {"from", "to"}, "closedAt", "forced",
"exports": [{"format", "file", "sha256", "rows"}]} on stdout; a refusal is still one line on
stderr. Exit codes: 0 closed, 1 refused (a day not RECONCILED, already closed) or failed,
2 bad arguments or config.`,
    )
    .action(
      async (
        flags: {
          period: string;
          environment?: string;
          force?: boolean;
          reason?: string;
          json?: boolean;
        },
        invoked: Command,
      ) => {
        if (flags.force && !flags.reason?.trim()) {
          throw new CliError(
            'close: --force needs --reason "…" saying why the month closes with days not RECONCILED',
            ExitCode.usage,
          );
        }
        const config = await cliConfig(invoked);
        const exportsModule = await import('../../exports/index.ts');
        const { openLedgerDatabase } = await import('../open-ledger-database.ts');
        const handle = await openLedgerDatabase(config, 'close');
        try {
          const closed = await exportsModule.closePeriod({
            db: handle.db,
            environment: flags.environment ?? config.environment,
            period: flags.period,
            timeZone: config.books.timeZone,
            formats: config.exports.formats,
            dir: config.exports.dir,
            force: Boolean(flags.force),
            now: cliClock(),
            ...(flags.reason ? { reason: flags.reason } : {}),
            by: userInfo().username,
          });
          if (flags.json) {
            printJson(closed);
            return;
          }
          say(
            `closed ${closed.period} (${closed.environment}), [${closed.window.from}, ${closed.window.to})${closed.forced ? ', forced' : ''}`,
          );
          for (const e of closed.exports)
            say(`  ${e.format}: ${e.file} (${e.rows} lines, sha256 ${e.sha256})`);
        } catch (error) {
          if (error instanceof exportsModule.PeriodError) {
            const { line, exitCode } = periodRefusalLine(error.refusal);
            throw new CliError(`close: ${line}`, exitCode);
          }
          throw error;
        } finally {
          await handle.close().catch(() => undefined);
        }
      },
    );
}
