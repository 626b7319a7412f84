/**
 * Issue 11, section 4: export speed and memory. Seeds a fresh SQLite database with a million
 * journal lines (alternating 2-line payment journals and 3-line payout journals with their fee
 * line), then exports the first 100,000 lines and all of them, as CSV and as hledger, with the
 * command a user runs: `paysync export --out FILE`, the compiled build (`npm run build` first
 * when dist/ is older than the sources). Each export is a process of its own, so its peak RSS
 * (`VmHWM`, read from /proc while it runs) is the export's alone. An export of an empty window
 * gives the floor: start-up time and the RSS of the loaded program. Prints rows per second and
 * peak RSS, and writes them to docs/performance.md.
 *
 * The seeding writes `journals` and `journal_lines` with prepared INSERTs in one transaction,
 * bypassing the ledger's functions: a million bookings through the ledger would take the
 * benchmark's whole budget, and the export only reads those two tables (plus the mirrors,
 * which stay empty here: their left joins still run, and miss).
 *
 * Usage: npm run bench:export [-- --lines 1000000 --no-write]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
// @ts-expect-error bin/entry.js is plain JavaScript without declarations
import { chooseEntry } from '../bin/entry.js';
import { createDatabase, migrateToLatest } from '../src/db/index.ts';
import type { ExportFormat } from '../src/exports/index.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '1000000' },
    'no-write': { type: 'boolean', default: false },
  },
});

const START = Date.UTC(2026, 0, 1);
const SPACING_MS = 5_000;
const instant = (journal: number) => new Date(START + journal * SPACING_MS).toISOString();

/** Journal index after which `lines` lines have been booked (5 lines per pair of journals). */
function journalsFor(lines: number): number {
  return Math.ceil((lines / 5) * 2);
}

interface Measured {
  /** Lines written, from the command's own summary line. */
  rows: number;
  /** From spawn to exit. */
  seconds: number;
  /** User + system CPU of the process. */
  cpuSeconds: number;
  bytes: number;
  peakRss: number;
}

const CLOCK_TICKS = 100;

/** utime + stime (s) and VmHWM (bytes) of a live process; undefined once it is gone. */
function sample(pid: number): { cpu: number; hwm: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpu = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    return { cpu, hwm };
  } catch {
    return undefined;
  }
}

/** Runs `paysync export` on the seeded file over [from, to) and measures it. */
async function exportOnce(
  file: string,
  format: ExportFormat,
  from: string,
  to: string,
): Promise<Measured> {
  const out = join(tmpdir(), `paysync-bench-export-${process.pid}.${format}`);
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    ['bin/paysync.js', 'export', '--from', from, '--to', to, '--format', format, '--out', out],
    {
      env: {
        ...process.env,
        PAYSYNC_DATABASE_URL: `sqlite:${file}`,
        PAYSYNC_BOOKS_TIMEZONE: 'UTC',
        PAYSYNC_ENVIRONMENT: 'sandbox',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let cpu = 0;
  let peakRss = 0;
  // VmHWM only grows, so the last reading before the exit is the peak; an exited process
  // (a zombie until it is reaped) no longer shows it, and its reading is ignored.
  const sampler = setInterval(() => {
    const now = sample(child.pid!);
    if (now && now.hwm > 0) ({ cpu, hwm: peakRss } = now);
  }, 10);
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  if (code !== 0) throw new Error(`paysync export exited ${code}: ${stderr.trim()}`);
  const rows = Number(/export: (\d+) lines/.exec(stderr)?.[1]);
  if (!Number.isInteger(rows)) throw new Error(`paysync export said: ${stderr.trim()}`);
  const bytes = statSync(out).size;
  rmSync(out, { force: true });
  return { rows, seconds, cpuSeconds: cpu, bytes, peakRss };
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
    // The ledger keeps day totals as it books (migration 0014); a bulk load adds them itself.
    sqlite.exec(`insert into ledger_day_totals (day, account, currency, amount)
      select substr(j.effective_at, 1, 10), l.account, l.currency, sum(l.amount)
      from journal_lines l join journals j on j.id = l.journal_id
      group by substr(j.effective_at, 1, 10), l.account, l.currency`);
  })();
  sqlite.close();
}

interface Run extends Measured {
  format: ExportFormat;
  window: number;
  /** The same command over an empty window: start-up and the loaded program. */
  floor: Measured;
}

/** The run with the median time of `count` runs: one slow or lucky run does not decide. */
async function medianOf(count: number, run: () => Promise<Measured>): Promise<Measured> {
  const runs: Measured[] = [];
  for (let i = 0; i < count; i += 1) runs.push(await run());
  runs.sort((a, b) => a.seconds - b.seconds);
  return runs[Math.floor(count / 2)]!;
}

/** Lines per second of the export itself: the whole command's time less its start-up. */
const rateOf = (r: Run) => r.rows / Math.max(r.seconds - r.floor.seconds, 1e-3);

async function main(): Promise<void> {
  const lines = Number(values.lines);
  if (chooseEntry(process.cwd()) !== 'dist') {
    // `paysync` would run the sources through tsx: measure what a user runs after `npm ci`.
    console.log('dist/ is older than the sources: npm run build');
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed (above)');
  }
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
    const from = instant(0);
    for (const format of ['csv', 'hledger'] as const) {
      const floor = await medianOf(3, () => exportOnce(file, format, instant(-1000), from));
      console.log(
        `${format}, empty window: ${floor.seconds.toFixed(2)} s, peak RSS ${mb(floor.peakRss)} MB`,
      );
      for (const window of windows) {
        const to = instant(journalsFor(window));
        const run = {
          format,
          window,
          floor,
          ...(await medianOf(3, () => exportOnce(file, format, from, to))),
        };
        runs.push(run);
        console.log(
          `${format} ${run.rows} rows: ${Math.round(rateOf(run))} rows/s, ${run.seconds.toFixed(2)} s in all (CPU ${run.cpuSeconds.toFixed(2)} s), peak RSS ${mb(run.peakRss)} MB, ${mb(run.bytes)} MB written`,
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
    '| Run | Commit | Load before | CSV rows/s 100k / 1M | CSV RSS with no row | CSV peak RSS 100k / 1M | hledger rows/s 100k / 1M | hledger peak RSS 100k / 1M |',
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
  const rate = (r: Run) => String(Math.round(rateOf(r)));
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  history.push(
    `| ${new Date().toISOString().slice(0, 16)}Z (paysync export, compiled) | ${commit.stdout.trim() || '?'} | ${load.map((l) => l.toFixed(2)).join(' / ')} | ${pair('csv', rate)} | ${mb(of('csv')[0]!.floor.peakRss)} MB | ${pair('csv', (r) => `${mb(r.peakRss)} MB`)} | ${pair('hledger', rate)} | ${pair('hledger', (r) => `${mb(r.peakRss)} MB`)} |`,
  );
  const csvFull = runs.find((r) => r.format === 'csv' && r.window === lines)!;
  const csvRate = rateOf(csvFull);
  const rssOk = of('csv').every((r) => r.peakRss < 150 * 1048576);
  const body = [
    start,
    '',
    `Last run: ${new Date().toISOString()} · Node ${process.version} · ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}) · load average before the run ${load
      .map((l) => l.toFixed(2))
      .join(' / ')} · SQLite, ${lines} lines seeded`,
    '',
    '| Format | Lines exported | rows/s | Command time (start-up) | CPU | Peak RSS (with no row) | Output |',
    '| ------ | -------------: | -----: | ----------------------: | --: | ---------------------: | -----: |',
    ...runs.map(
      (r) =>
        `| ${r.format} | ${r.rows} | ${rate(r)} | ${r.seconds.toFixed(2)} s (${r.floor.seconds.toFixed(2)} s) | ${r.cpuSeconds.toFixed(2)} s | ${mb(r.peakRss)} MB (${mb(r.floor.peakRss)} MB) | ${mb(r.bytes)} MB |`,
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

await main();
