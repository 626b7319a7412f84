/**
 * Issue 11, section 4: export speed and memory. Seeds a fresh SQLite database with a million
 * journal lines (alternating 2-line payment journals and 3-line payout journals with their fee
 * line), then exports the first 100,000 lines and all of them, as CSV and as hledger, each in a
 * child process of its own so its peak RSS (getrusage maxrss) is the export's alone. Prints rows
 * per second and peak RSS, and writes them to docs/performance.md.
 *
 * The seeding writes `journals` and `journal_lines` with prepared INSERTs in one transaction,
 * bypassing the ledger's functions: a million bookings through the ledger would take the
 * benchmark's whole budget, and the export only reads those two tables (plus the mirrors,
 * which stay empty here: their left joins still run, and miss).
 *
 * Usage: npm run bench:export [-- --lines 1000000 --no-write]
 */
import { spawnSync } from 'node:child_process';
import {
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { createDatabase, migrateToLatest } from '../src/db/index.ts';
import { writeExport, type ExportFormat } from '../src/exports/index.ts';

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '1000000' },
    'no-write': { type: 'boolean', default: false },
    child: { type: 'string' },
    db: { type: 'string' },
    format: { type: 'string' },
    to: { type: 'string' },
  },
});

const START = Date.UTC(2026, 0, 1);
const SPACING_MS = 5_000;
const instant = (journal: number) => new Date(START + journal * SPACING_MS).toISOString();

/** Journal index after which `lines` lines have been booked (5 lines per pair of journals). */
function journalsFor(lines: number): number {
  return Math.ceil((lines / 5) * 2);
}

async function child(): Promise<void> {
  const handle = createDatabase(`sqlite:${values.db!}`);
  const out = join(tmpdir(), `paysync-bench-export-${process.pid}`);
  // What the process holds before the first row: Node, tsx's loader, paysync's modules.
  const startRss = process.memoryUsage().rss;
  let peak = startRss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 25);
  const started = process.hrtime.bigint();
  const result = await writeExport(
    {
      db: handle.db,
      format: values.format as ExportFormat,
      window: { from: instant(0), to: values.to! },
      environment: 'sandbox',
      timeZone: 'UTC',
    },
    createWriteStream(out),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  const bytes = statSync(out).size;
  rmSync(out, { force: true });
  await handle.close();
  const maxRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    JSON.stringify({
      rows: result.rows,
      seconds,
      bytes,
      startRss,
      peakRss: Math.max(peak, maxRss),
    }),
  );
}

function seed(file: string, lines: number): void {
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = OFF');
  const journal = sqlite.prepare(
    `insert into journals (id, resource_kind, resource_id, settlement_key, entry_type, description, effective_at, posted_at, via)
     values (?, ?, ?, 'settlement-1', 'settlement', ?, ?, ?, 'webhook')`,
  );
  const line = sqlite.prepare(
    'insert into journal_lines (journal_id, line_no, account, currency, amount) values (?, ?, ?, ?, ?)',
  );
  const currencies = ['XOF', 'EUR', 'TND'];
  sqlite.transaction(() => {
    let written = 0;
    for (let j = 1; written < lines; j += 1) {
      const at = instant(j - 1);
      const currency = currencies[j % 3]!;
      const amount = 1000 + (j % 997);
      if (j % 2 === 1) {
        journal.run(j, 'payment_intent', `pi_${j}`, `payment intent pi_${j} successful`, at, at);
        line.run(j, 1, 'service:collection', currency, amount);
        line.run(j, 2, 'income:payments', currency, -amount);
        written += 2;
      } else {
        journal.run(
          j,
          'transfer',
          `tr_${j}`,
          `transfer tr_${j} (payout-${j}, "bulk") successful`,
          at,
          at,
        );
        line.run(j, 1, 'payouts:recipients', currency, amount);
        line.run(j, 2, 'expenses:transfer-fees', currency, 10);
        line.run(j, 3, 'service:transfer', currency, -amount - 10);
        written += 3;
      }
    }
  })();
  sqlite.close();
}

interface Run {
  format: ExportFormat;
  window: number;
  rows: number;
  seconds: number;
  bytes: number;
  startRss: number;
  peakRss: number;
}

async function main(): Promise<void> {
  const lines = Number(values.lines);
  const load = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'paysync-bench-export-'));
  const file = join(dir, 'paysync.db');
  try {
    const handle = createDatabase(`sqlite:${file}`);
    await migrateToLatest(handle.db);
    await handle.close();
    const seedStart = Date.now();
    seed(file, lines);
    console.log(
      `seeded ${lines} journal lines in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`,
    );
    const runs: Run[] = [];
    const windows = [...new Set([Math.min(100_000, lines), lines])];
    for (const format of ['csv', 'hledger'] as const) {
      for (const window of windows) {
        const to = instant(journalsFor(window));
        const result = spawnSync(
          process.execPath,
          [
            '--import',
            'tsx',
            'bench/export.ts',
            '--child',
            '1',
            '--db',
            file,
            '--format',
            format,
            '--to',
            to,
          ],
          { encoding: 'utf8', maxBuffer: 1 << 20 },
        );
        if (result.status !== 0) throw new Error(`export child failed: ${result.stderr}`);
        const run = {
          format,
          window,
          ...(JSON.parse(result.stdout) as Omit<Run, 'format' | 'window'>),
        };
        runs.push(run);
        console.log(
          `${format} ${run.rows} rows: ${Math.round(run.rows / run.seconds)} rows/s, ${run.seconds.toFixed(2)} s, RSS ${mb(run.startRss)} MB before the first row, peak ${mb(run.peakRss)} MB, ${mb(run.bytes)} MB written`,
        );
      }
    }
    if (!values['no-write']) writeDocs(runs, lines, load);
  } finally {
    if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
    else console.log(file);
  }
}

const mb = (bytes: number) => (bytes / 1048576).toFixed(0);

/**
 * Rewrites the bench's section of docs/performance.md: the detail of this run, and the history
 * table (one row per run, newest last, earlier rows kept) so before and after stay side by side.
 */
function writeDocs(runs: readonly Run[], lines: number, load: number[]): void {
  const file = 'docs/performance.md';
  const start =
    '<!-- bench:export:start (written by `npm run bench:export`; edit outside the markers) -->';
  const end = '<!-- bench:export:end -->';
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(start);
  const old = at >= 0 ? text.slice(at, text.indexOf(end)) : '';
  const historyHead = [
    '| Run | Commit | Load before | CSV rows/s 100k / 1M | CSV RSS before first row | CSV peak RSS 100k / 1M | hledger rows/s 100k / 1M | hledger peak RSS 100k / 1M |',
    '| --- | ------ | ----------- | -------------------: | -----------------------: | ---------------------: | -----------------------: | -------------------------: |',
  ];
  // Found by the sentence before it: prettier realigns the table's header.
  const historyAt = old.indexOf('Runs, newest last');
  const history =
    historyAt < 0
      ? []
      : old
          .slice(historyAt)
          .split('\n')
          .filter((l) => l.startsWith('|'))
          .slice(2);
  const of = (format: string) => runs.filter((r) => r.format === format);
  const pair = (format: string, f: (r: Run) => string) => of(format).map(f).join(' / ');
  const rate = (r: Run) => String(Math.round(r.rows / r.seconds));
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  history.push(
    `| ${new Date().toISOString().slice(0, 16)}Z | ${commit.stdout.trim() || '?'} | ${load.map((l) => l.toFixed(2)).join(' / ')} | ${pair('csv', rate)} | ${pair('csv', (r) => `${mb(r.startRss)} MB`)} | ${pair('csv', (r) => `${mb(r.peakRss)} MB`)} | ${pair('hledger', rate)} | ${pair('hledger', (r) => `${mb(r.peakRss)} MB`)} |`,
  );
  const csvFull = runs.find((r) => r.format === 'csv' && r.window === lines)!;
  const csvRate = csvFull.rows / csvFull.seconds;
  const rssOk = of('csv').every((r) => r.peakRss < 150 * 1048576);
  const body = [
    start,
    '',
    `Last run: ${new Date().toISOString()} · Node ${process.version} · ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}) · load average before the run ${load
      .map((l) => l.toFixed(2))
      .join(' / ')} · SQLite, ${lines} lines seeded`,
    '',
    '| Format  | Lines exported | rows/s | Time | RSS before the first row | Peak RSS | Output |',
    '| ------- | -------------: | -----: | ---: | -----------------------: | -------: | -----: |',
    ...runs.map(
      (r) =>
        `| ${r.format.padEnd(7)} | ${r.rows} | ${rate(r)} | ${r.seconds.toFixed(2)} s | ${mb(r.startRss)} MB | ${mb(r.peakRss)} MB | ${mb(r.bytes)} MB |`,
    ),
    '',
    `**CSV: ${Math.round(csvRate)} rows/s** over ${lines} lines (target ≥ 300000: ${csvRate >= 300_000 ? 'met' : 'not met'}); peak RSS under 150 MB: ${rssOk ? 'yes' : 'no'}.`,
    '',
    'Runs, newest last (each run of `npm run bench:export` adds a row; figures depend on the load average):',
    '',
    ...historyHead,
    ...history,
    end,
  ].join('\n');
  const next =
    at >= 0
      ? text.slice(0, at) + body + text.slice(text.indexOf(end) + end.length)
      : `${text.trimEnd()}\n\n${body}\n`;
  writeFileSync(file, next);
}

if (values.child) await child();
else await main();
