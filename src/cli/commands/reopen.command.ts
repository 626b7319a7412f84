import { userInfo } from 'node:os';
import { Command, Option } from 'commander';
import { cliClock, cliConfig } from '../context.ts';
import { CliError, ExitCode } from '../errors.ts';
import { periodRefusalLine } from '../format/refusal-lines.ts';
import { periodOption } from '../input/parse-period.ts';
import { printJson, say } from '../output.ts';

/** `paysync reopen --period YYYY-MM --reason …`: undoes a close, with a logged reason. */
export function reopenCommand(): Command {
  return new Command('reopen')
    .description('reopen a closed month (logged; a reason is required)')
    .addOption(
      new Option('--period <YYYY-MM>', 'the month').makeOptionMandatory().argParser(periodOption),
    )
    .addOption(
      new Option('--reason <text>', 'why the closed month must change').makeOptionMandatory(),
    )
    .addOption(
      new Option('--environment <env>', 'live or sandbox (default: PAYSYNC_ENVIRONMENT)').choices([
        'live',
        'sandbox',
      ]),
    )
    .option('--json', 'print one JSON document: the month reopened, when, and why')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync reopen --period 2026-11 --reason "late bank statement"
  $ paysync reopen --period 2026-11 --reason "late bank statement" --json | jq .reopenedAt

--json prints {"period", "environment", "reopenedAt", "reason"} on stdout; a refusal is still
one line on stderr. Exit codes: 0 reopened, 1 the month is not closed or the database failed,
2 bad arguments or config.`,
    )
    .action(
      async (
        flags: { period: string; reason: string; environment?: string; json?: boolean },
        invoked: Command,
      ) => {
        if (!flags.reason.trim()) {
          throw new CliError(
            'reopen: --reason is empty: say why the closed month must change',
            ExitCode.usage,
          );
        }
        const config = await cliConfig(invoked);
        const exportsModule = await import('../../exports/index.ts');
        const { openLedgerDatabase } = await import('../open-ledger-database.ts');
        const handle = await openLedgerDatabase(config, 'reopen');
        const environment = flags.environment ?? config.environment;
        const now = cliClock();
        try {
          await exportsModule.reopenPeriod({
            db: handle.db,
            environment,
            period: flags.period,
            reason: flags.reason,
            by: userInfo().username,
            now,
          });
          if (flags.json) {
            printJson({
              period: flags.period,
              environment,
              reopenedAt: now.toISOString(),
              reason: flags.reason.trim(),
            });
            return;
          }
          say(`reopened ${flags.period} (${environment}): ${flags.reason.trim()}`);
        } catch (error) {
          if (error instanceof exportsModule.PeriodError) {
            const { line, exitCode } = periodRefusalLine(error.refusal);
            throw new CliError(`reopen: ${line}`, exitCode);
          }
          throw error;
        } finally {
          await handle.close().catch(() => undefined);
        }
      },
    );
}
