/**
 * Issue 14: the auditor must judge 100,000 items in under 30 s on SQLite. Seeds a fresh SQLite
 * file directly with correct books (no daemon: bulk inserts in chunks through
 * test/support/seed-books.ts, shared with `bench:history`) and the matching ground truth, then
 * times `runAudit` against that truth and writes the figure to docs/performance.md (between the
 * `bench:audit` markers).
 *
 * The mix per 100 items: 40 transfers (30 successful with a fee, 4 failed, 2 settled then
 * failed, i.e. a settlement and its reversal, 4 pending), 40 payment intents (34 successful,
 * 6 failed), 10 refunds and 10 payment refunds (successful). Every item has one processed
 * inbox row covered by its sync record (`mirror_polls.covered_inbox_id`).
 *
 * Issue 22 (build 5): `--since` then books one more day (`--day`, 5,500 items: a busy merchant's
 * day) after the full audit recorded its watermark, and times `runAudit({ since: 'last-clean' })`
 * over it. The peak RSS is printed after each audit.
 *
 * `--without-truth` times the books-only audit, as `paysync audit` runs on real books (the
 * comparison with the simulator's truth is about half the time).
 *
 * Usage: npm run bench:audit [-- --items 100000] [--since] [--day 5500] [--without-truth]
 *   [--no-write]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { resourceUsage } from 'node:process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { formatAudit, runAudit, type GroundTruth } from '../src/audit/index.ts';
import { createDatabase, migrateToLatest, type Database } from '../src/db/index.ts';
import {
  generateBooks,
  insertChunk,
  type BooksCount,
  type BooksOptions,
} from '../test/support/seed-books.ts';
import { benchCli } from './bench-cli.ts';

const TARGET_SECONDS = 30;
benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '100000' },
    'no-write': { type: 'boolean', default: false },
    since: { type: 'boolean', default: false },
    'without-truth': { type: 'boolean', default: false },
    day: { type: 'string', default: '5500' },
  },
});
const dayItems = Number(values.day);
if (!Number.isInteger(dayItems) || dayItems < 100) {
  console.error(`--day "${values.day}" must be a whole number of at least 100`);
  process.exit(2);
}
const total = Number(values.items);
if (!Number.isInteger(total) || total < 100) {
  console.error(`--items "${values.items}" must be a whole number of at least 100`);
  process.exit(2);
}

/** The books span the ten hours before AT (so none of their transfers is old enough to fail). */
const START = '2026-11-01T00:00:00.000Z';
const AT = '2026-11-01T10:00:00.000Z';
const DAY = 86_400_000;

/** What a seed wrote: the counts printed and the ground truth of its items. */
interface Seeded {
  readonly journals: number;
  readonly lines: number;
  readonly inbox: number;
  /** Where its ids end: the next seed continues after them. */
  readonly count: BooksCount;
  readonly truth: GroundTruth;
}

/** Books `items` items from `start` to `end` (test/support/seed-books.ts), after `after`. */
async function seedBooks(
  db: Kysely<Database>,
  options: Pick<BooksOptions, 'items' | 'start' | 'end' | 'truth' | 'after'>,
): Promise<Seeded> {
  let journals = 0;
  let lines = 0;
  let inbox = 0;
  let count: BooksCount | undefined;
  const truth = await generateBooks({ ...options, chunkItems: 20_000 }, async (chunk, _, sofar) => {
    journals += chunk.journals.length;
    lines += chunk.journal_lines.length;
    inbox += chunk.webhook_inbox.length;
    count = sofar;
    await insertChunk(db, chunk);
  });
  return { journals, lines, inbox, count: count!, truth };
}

const machine = () =>
  `${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ') ?? '?'}, Node ${process.version}`;
const peakRssMb = () => Math.round(resourceUsage().maxRSS / 1024);

const dir = mkdtempSync(join(tmpdir(), 'paysync-bench-audit-'));
const handle = createDatabase(`sqlite:${join(dir, 'paysync.db')}`);
try {
  await migrateToLatest(handle.db);
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
  const seedStarted = performance.now();
  // The books-only audit needs no truth: without it, the seed holds nothing in memory.
  const seed = await seedBooks(handle.db, {
    items: total,
    start: START,
    end: AT,
    truth: !values['without-truth'],
  });
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  console.log(
    `seeded ${total} items, ${seed.journals} journals, ${seed.lines} lines, ${seed.inbox} inbox rows in ${seedSeconds.toFixed(1)} s`,
  );
  const rssBeforeMb = Math.round(process.memoryUsage().rss / 1024 / 1024);
  const started = performance.now();
  const report = await runAudit(handle.db, {
    ...(values['without-truth'] ? {} : { truth: seed.truth }),
    mode: 'sandbox',
    now: () => new Date(),
    record: values.since,
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(formatAudit(report));
  console.log(
    `RSS before the full audit (the ground truth held, unless --without-truth): ${rssBeforeMb} MB; peak RSS after it: ${peakRssMb()} MB`,
  );
  let sinceVerdict = 'pass';
  let sinceRow: string | undefined;
  if (values.since) {
    // The day is booked after the full audit read the books: its ids follow the books' and its
    // items are stamped over the 24 hours from now, so they are synced after that audit's
    // watermark (the incremental audit reads ids and sync times, not calendar days).
    const dayStart = Date.now();
    const daySeed = await seedBooks(handle.db, {
      items: dayItems,
      start: new Date(dayStart).toISOString(),
      end: new Date(dayStart + DAY).toISOString(),
      after: seed.count,
    });
    const dayStarted = performance.now();
    const incremental = await runAudit(handle.db, {
      mode: 'sandbox',
      now: () => new Date(),
      since: 'last-clean',
      record: true,
    });
    const daySeconds = (performance.now() - dayStarted) / 1000;
    console.log(formatAudit(incremental));
    const expected = incremental.counts.items === dayItems && incremental.mode === 'incremental';
    sinceVerdict = incremental.clean && expected ? 'pass' : 'FAIL';
    console.log(
      `incremental audit of one more day (${dayItems} items, ${daySeed.journals} journals) over ${total} items: ${daySeconds.toFixed(2)} s, ${incremental.counts.items} items read: ${sinceVerdict}; peak RSS ${peakRssMb()} MB`,
    );
    sinceRow = `| ${new Date().toISOString()} | ${machine()}, load ${load} | ${total} | ${dayItems} | ${daySeed.journals} | ${daySeconds.toFixed(2)} s | ${seconds.toFixed(2)} s | ${incremental.clean ? 'clean' : `${incremental.violations.length} violations`} |`;
  }
  const verdict = report.clean && seconds < TARGET_SECONDS ? 'pass' : 'FAIL';
  console.log(
    `audit of ${total} items: ${seconds.toFixed(2)} s (target < ${TARGET_SECONDS} s): ${verdict}`,
  );
  if (!values['no-write']) {
    const file = join(import.meta.dirname, '../docs/performance.md');
    const current = readFileSync(file, 'utf8');
    const row = `| ${new Date().toISOString()} | ${machine()}, load ${load} | ${total} | ${seed.journals} | ${seed.lines} | ${seed.inbox} | ${seconds.toFixed(2)} s | ${report.clean ? 'clean' : `${report.violations.length} violations`} |`;
    const marker = '<!-- bench:audit:rows (appended by `npm run bench:audit`) -->';
    let text = current;
    const append = (mark: string, line: string) => {
      if (text.includes(mark)) {
        text = text.replace(mark, `${line}\n${mark}`);
        console.log(`added the run to ${file}`);
      } else {
        console.log(`no "${mark}" in ${file}; the row was not written:\n${line}`);
      }
    };
    append(marker, row);
    if (sinceRow) {
      append(
        '<!-- bench:audit-since:rows (appended by `npm run bench:audit -- --since`) -->',
        sinceRow,
      );
    }
    writeFileSync(file, text);
  }
  process.exitCode = verdict === 'pass' && sinceVerdict === 'pass' ? 0 : 1;
} finally {
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
}
