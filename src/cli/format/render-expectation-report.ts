import type {
  BreakView,
  ExpectationPeriodReport,
  ExpectedMoney,
} from '../../expectations/index.ts';
import { stringifyCsv } from '../../exports/index.ts';
import { formatAmount } from './format-amount.ts';
import { renderTable } from './render-table.ts';

/** One report of `paysync expect report`, with the books' days it covers. */
export interface LabelledExpectationReport extends ExpectationPeriodReport {
  /** First and last books day, inclusive, in PAYSYNC_BOOKS_TIMEZONE. */
  readonly firstDay: string;
  readonly lastDay: string;
}

function expectedText(m: ExpectedMoney): string {
  return m.expectedMin === m.expectedMax
    ? formatAmount(m.expectedMin, m.currency)
    : `${formatAmount(m.expectedMin, m.currency)} – ${formatAmount(m.expectedMax, m.currency)}`;
}

function days(r: LabelledExpectationReport): string {
  return r.firstDay === r.lastDay ? r.firstDay : `${r.firstDay} – ${r.lastDay}`;
}

/** The report as text: states, money per currency, breaks by kind, and the open breaks. */
export function renderExpectationReportTable(
  r: LabelledExpectationReport,
  timeZone: string,
): string {
  const lines = [
    `Expectations due ${days(r)} (${timeZone}, ${r.environment}): window ending in (${r.from}, ${r.to}]`,
    '',
    renderTable(
      [
        { header: 'STATE', value: (s: { state: string; count: number }) => s.state },
        { header: 'COUNT', value: (s) => String(s.count), align: 'right' },
      ],
      r.states,
    ),
    '',
  ];
  if (r.money.length === 0) lines.push('No expectation due in the period (cancelled ones aside).');
  else {
    lines.push(
      renderTable<ExpectedMoney>(
        [
          { header: 'CURRENCY', value: (m) => m.currency },
          { header: 'EXPECTATIONS', value: (m) => String(m.count), align: 'right' },
          { header: 'EXPECTED', value: expectedText, align: 'right' },
          {
            header: 'MATCHED',
            value: (m) => formatAmount(m.matched, m.currency),
            align: 'right',
          },
        ],
        r.money,
      ),
    );
  }
  lines.push('');
  if (r.breaks.length === 0) lines.push('No break detected in the period.');
  else {
    lines.push(
      renderTable(
        [
          { header: 'BREAK', value: (b: (typeof r.breaks)[number]) => b.kind },
          { header: 'OPEN', value: (b) => String(b.open), align: 'right' },
          { header: 'RESOLVED', value: (b) => String(b.resolved), align: 'right' },
        ],
        r.breaks,
      ),
    );
  }
  if (r.openBreaks.length > 0) {
    lines.push('', 'Open breaks:');
    for (const b of r.openBreaks) {
      lines.push(
        `  ✖ ${b.id} ${b.kind} ${subject(b)}: ${b.explanation}`,
        `    → ${b.suggested_action}`,
      );
    }
  }
  return lines.join('\n');
}

function subject(b: BreakView): string {
  return b.expectation_id ?? b.item_id ?? '-';
}

/** The columns of `--format csv`: one row per state, currency, break kind and open break. */
export const EXPECTATION_REPORT_CSV_COLUMNS = [
  'first_day',
  'last_day',
  'section',
  'name',
  'currency',
  'count',
  'open',
  'resolved',
  'expected_min_minor',
  'expected_max_minor',
  'matched_minor',
  'break_id',
  'expectation_id',
  'item_id',
  'difference_minor',
  'detected_at',
  'explanation',
  'suggested_action',
] as const;

type CsvRow = Partial<Record<(typeof EXPECTATION_REPORT_CSV_COLUMNS)[number], string | number>>;

/**
 * The reports as one CSV (stringifyCsv: a text cell a spreadsheet would run is neutralised): `section` is `state`, `money`, `break` (a kind's
 * counts) or `open_break` (one open break); money in integer minor units.
 */
export function renderExpectationReportCsv(reports: readonly LabelledExpectationReport[]): string {
  const rows: CsvRow[] = [];
  for (const r of reports) {
    const period = { first_day: r.firstDay, last_day: r.lastDay };
    for (const s of r.states)
      rows.push({ ...period, section: 'state', name: s.state, count: s.count });
    for (const m of r.money) {
      rows.push({
        ...period,
        section: 'money',
        name: 'expected_vs_matched',
        currency: m.currency,
        count: m.count,
        expected_min_minor: m.expectedMin,
        expected_max_minor: m.expectedMax,
        matched_minor: m.matched,
      });
    }
    for (const b of r.breaks) {
      rows.push({
        ...period,
        section: 'break',
        name: b.kind,
        count: b.open + b.resolved,
        open: b.open,
        resolved: b.resolved,
      });
    }
    for (const b of r.openBreaks) {
      rows.push({
        ...period,
        section: 'open_break',
        name: b.kind,
        currency: b.currency ?? '',
        break_id: b.id,
        expectation_id: b.expectation_id ?? '',
        item_id: b.item_id ?? '',
        difference_minor: b.difference ?? '',
        detected_at: b.detected_at,
        explanation: b.explanation,
        suggested_action: b.suggested_action,
      });
    }
  }
  return stringifyCsv(rows, {
    header: true,
    columns: [...EXPECTATION_REPORT_CSV_COLUMNS],
    record_delimiter: 'unix',
  });
}
