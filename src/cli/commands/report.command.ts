import { Command, InvalidArgumentError } from 'commander';
import { dayOf, previousDay } from '../../books-calendar/index.ts';
import type { DailyReport } from '../../reports/index.ts';
import { cliClock, cliConfig } from '../context.ts';
import { formatAmount } from '../format/format-amount.ts';
import { renderTable } from '../format/render-table.ts';
import { say, printJson } from '../output.ts';

function dayArgument(value: string): string {
  const text = value.trim();
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const real =
    match !== null &&
    new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
      .toISOString()
      .startsWith(text);
  if (!real) {
    throw new InvalidArgumentError(
      `--date "${value}" is not a calendar day: use YYYY-MM-DD, e.g. 2026-11-21 (a day of PAYSYNC_BOOKS_TIMEZONE)`,
    );
  }
  return text;
}

/** For a past day: the ages are as of its end, and items created after it are left out. */
function ageAsOf(report: DailyReport): string {
  return report.generatedAt >= report.window.to
    ? ` at the end of the day (still open now, created by ${report.window.to})`
    : '';
}

function renderReport(report: DailyReport): string {
  const lines = [
    `${report.day} (${report.timeZone}, ${report.environment}): ${report.verdict}`,
    `window ${report.window.from} – ${report.window.to}, generated ${report.generatedAt}`,
  ];
  if (report.breaks.length > 0) {
    lines.push('', 'Breaks:');
    for (const b of report.breaks) lines.push(`  ✖ ${b.line}\n    → ${b.action}`);
  }
  const expectationBreaks = report.expectationBreaks ?? [];
  if (expectationBreaks.length > 0) {
    lines.push('', 'Open expectation breaks detected that day:');
    for (const b of expectationBreaks) {
      lines.push(
        `  ${b.kind}: ${b.count}${b.breaksTheDay ? ' (breaks the day)' : ' (counted only)'}`,
      );
    }
  }
  if (report.incomplete.length > 0) {
    lines.push('', 'Cannot vouch for the day:');
    for (const reason of report.incomplete) lines.push(`  ? ${reason}`);
  }
  if (report.pending.length > 0) {
    lines.push('', 'Pending inside their SLA:');
    for (const p of report.pending) {
      lines.push(`  … ${p.kind} ${p.id} ${p.status} for ${p.ageHours} h (SLA ${p.slaHours} h)`);
    }
  }
  lines.push('', 'Items created that day:');
  lines.push(
    report.counts.length === 0
      ? '  none'
      : renderTable(
          [
            { header: '  KIND', value: (c: DailyReport['counts'][number]) => `  ${c.kind}` },
            { header: 'STATUS', value: (c) => c.status },
            { header: 'COUNT', value: (c) => String(c.count), align: 'right' },
          ],
          report.counts,
        ),
  );
  lines.push('', 'Money booked that day:');
  lines.push(
    report.money.length === 0
      ? '  none'
      : renderTable(
          [
            { header: '  CURRENCY', value: (m: DailyReport['money'][number]) => `  ${m.currency}` },
            { header: 'GROSS', value: (m) => formatAmount(m.gross, m.currency), align: 'right' },
            { header: 'FEES', value: (m) => formatAmount(m.fees, m.currency), align: 'right' },
            {
              header: 'REFUNDS',
              value: (m) => formatAmount(m.refunds, m.currency),
              align: 'right',
            },
            {
              header: 'PAYOUTS',
              value: (m) => formatAmount(m.payouts, m.currency),
              align: 'right',
            },
            { header: 'NET', value: (m) => formatAmount(m.net, m.currency), align: 'right' },
            {
              header: 'OPENING BALANCES',
              value: (m) => formatAmount(m.openingBalances, m.currency),
              align: 'right',
            },
            {
              header: 'ADJUSTMENTS',
              value: (m) => formatAmount(m.adjustments, m.currency),
              align: 'right',
            },
          ],
          report.money,
        ),
  );
  if (report.endOfDayBalances) {
    lines.push('', `End-of-day balances (${report.window.to}):`);
    lines.push(
      renderTable(
        [
          {
            header: '  ACCOUNT',
            value: (b: NonNullable<DailyReport['endOfDayBalances']>[number]) =>
              `  ${b.accountType}`,
          },
          {
            header: 'SERVICE',
            value: (b) =>
              b.service === null ? 'not in answer' : formatAmount(b.service, b.currency),
            align: 'right',
          },
          { header: 'LEDGER', value: (b) => formatAmount(b.ledger, b.currency), align: 'right' },
          {
            header: 'DIFFERENCE',
            value: (b) =>
              b.difference === null ? 'not compared' : formatAmount(b.difference, b.currency),
            align: 'right',
          },
        ],
        report.endOfDayBalances,
      ),
    );
  }
  lines.push(
    '',
    `Open items by age${ageAsOf(report)}: ${report.ageing.map((a) => `${a.bucket} ${a.count}`).join(', ')}`,
  );
  return lines.join('\n');
}

/** `paysync report --date <day>`: the day's verdict and what it rests on. */
export function reportCommand(): Command {
  return new Command('report')
    .description("one day's reconciliation verdict: are that day's books right?")
    .option(
      '--date <YYYY-MM-DD>',
      'the day, in PAYSYNC_BOOKS_TIMEZONE (default: yesterday there)',
      dayArgument,
    )
    .option('--json', 'print the whole report as JSON')
    .addHelpText(
      'after',
      `
Verdicts and exit codes:
  RECONCILED               0  every item of the day final and booked, end-of-day balances agree
  RECONCILED_WITH_PENDING  0  the same, except items still pending inside their SLA (listed)
  BREAKS                   3  something is wrong: one line each, with what to do
  INCOMPLETE               4  paysync cannot vouch for the day (no end-of-day snapshot, sweeps
                              did not cover it, or the day is not over)
Errors exit 1 (database) or 2 (bad flags).

Examples:
  $ paysync report                         yesterday
  $ paysync report --date 2026-11-21 --json | jq .breaks
  $ paysync report --date "$(date -d yesterday +%F)" || page-finance`,
    )
    .action(async (flags: { date?: string; json?: boolean }, invoked: Command) => {
      const config = await cliConfig(invoked);
      const reports = await import('../../reports/index.ts');
      const now = cliClock();
      const day = flags.date ?? previousDay(dayOf(now, config.books.timeZone));
      const { openLedgerDatabase } = await import('../open-ledger-database.ts');
      const handle = await openLedgerDatabase(config, 'report');
      let report: DailyReport;
      try {
        const { sweepCoverage } = await import('../../polling/index.ts');
        // The same judgement as the verdicts task, the dashboard and the ops API (judgeDay).
        const rules = reports.verdictRulesOf(config, sweepCoverage(handle.db, config.environment));
        report = await reports.judgeDay(
          {
            db: handle.db,
            environment: config.environment,
            timeZone: config.books.timeZone,
            rules,
          },
          day,
          now,
        );
      } finally {
        await handle.close().catch(() => undefined);
      }
      if (flags.json) printJson(report);
      else say(renderReport(report));
      process.exitCode = reports.verdictExitCode(report.verdict);
    });
}
