/**
 * Issue 22: a year of a busy merchant's books, for the flat-in-size figures. Builds a database
 * by bulk load (test/support/seed-books.ts, no daemon and no service): by default 2,000,000 items over
 * the 365 days before `--end`, about 5,500 a day, with everything the daemon writes (mirror
 * rows, status history, journals and lines, fetch coverages, three processed inbox events per
 * item with bodies of ~700 bytes, outbox rows, alerts and deliveries, hourly balance snapshots,
 * the scheduled runs of the default cron table, poll checkpoints), then ANALYZE.
 *
 * Usage:
 *   npm run bench:history -- --dialect sqlite --out /tmp/year.db [--items 2000000]
 *   npm run bench:history -- --dialect postgres --url postgres://postgres@127.0.0.1:5432/test \
 *     --schema year [--items 2000000]
 * Prints the URL to give `PAYSYNC_DATABASE_URL`, bench:big-books and bench:pipeline --database.
 * `--audit` runs the auditor on the result against the generator's ground truth (small runs).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { sql } from 'kysely';
import { formatAudit, runAudit } from '../src/audit/index.ts';
import {
  createDatabase,
  migrateToLatest,
  sqliteConnectionOf,
  type DatabaseHandle,
} from '../src/db/index.ts';
import {
  advanceIdentitySequences,
  generateBooks,
  insertChunk,
  insertRows,
} from '../test/support/seed-books.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    dialect: { type: 'string', default: 'sqlite' },
    out: { type: 'string' },
    url: { type: 'string' },
    schema: { type: 'string', default: 'paysync_year' },
    items: { type: 'string', default: '2000000' },
    days: { type: 'string', default: '365' },
    end: { type: 'string', default: '2026-11-01T00:00:00.000Z' },
    'events-per-item': { type: 'string', default: '3' },
    'body-bytes': { type: 'string', default: '700' },
    audit: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function wholeNumber(flag: string, min: number): number {
  const value = Number(values[flag as keyof typeof values]);
  if (!Number.isInteger(value) || value < min) {
    fail(
      `--${flag} "${String(values[flag as keyof typeof values])}" must be a whole number of at least ${min}`,
    );
  }
  return value;
}

const items = wholeNumber('items', 100);
const days = wholeNumber('days', 1);
const eventsPerItem = wholeNumber('events-per-item', 1);
const bodyBytes = wholeNumber('body-bytes', 2);
if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(values.end!)) {
  fail(
    `--end "${values.end}" must be a UTC ISO time with milliseconds, e.g. 2026-11-01T00:00:00.000Z`,
  );
}
const end = values.end!;
const start = new Date(Date.parse(end) - days * 86_400_000).toISOString();

async function open(): Promise<{ handle: DatabaseHandle; url: string }> {
  if (values.dialect === 'sqlite') {
    if (!values.out) fail('--out <file> is required with --dialect sqlite');
    const file = resolve(values.out);
    if (existsSync(file)) fail(`--out ${file} already exists; remove it or choose another file`);
    const url = `sqlite:${file}`;
    return { handle: createDatabase(url), url };
  }
  if (values.dialect === 'postgres') {
    if (!values.url) fail('--url postgres://… is required with --dialect postgres');
    const schema = values.schema!;
    if (!/^[a-z_][a-z0-9_]*$/.test(schema))
      fail(`--schema "${schema}" must be a lower-case identifier`);
    const admin = createDatabase(values.url, { poolSize: 1 });
    try {
      const found = await sql<{
        n: number;
      }>`select count(*)::int as n from information_schema.schemata where schema_name = ${schema}`.execute(
        admin.db,
      );
      if (found.rows[0]!.n > 0) {
        fail(
          `--schema ${schema} already exists; drop it (drop schema ${schema} cascade) or choose another`,
        );
      }
      await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    } finally {
      await admin.close();
    }
    const url = new URL(values.url);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return {
      handle: createDatabase(values.url, { searchPath: schema, poolSize: 2 }),
      url: url.toString(),
    };
  }
  fail(`--dialect "${values.dialect}" must be sqlite or postgres`);
}

const { handle, url } = await open();
try {
  await migrateToLatest(handle.db);
  const sqlite = sqliteConnectionOf(handle.db);
  // A bulk load of a throw-away file: a crash mid-way means starting again, so skip the fsyncs.
  sqlite?.pragma('synchronous = OFF');
  const started = performance.now();
  let rows = 0;
  const bar = new cliProgress.SingleBar(
    { format: 'items {bar} {value}/{total} | {rows} rows | {rate} rows/s | eta {eta_formatted}' },
    cliProgress.Presets.shades_classic,
  );
  bar.start(items, 0, { rows: 0, rate: 0 });
  const truth = await generateBooks(
    {
      items,
      start,
      end,
      eventsPerItem,
      bodyBytes,
      everything: true,
      truth: values.audit,
      chunkItems: 5_000,
    },
    async (chunk, done) => {
      rows += await insertChunk(handle.db, chunk);
      const seconds = (performance.now() - started) / 1000;
      bar.update(done, { rows, rate: Math.round(rows / seconds) });
    },
  );
  await insertRows(
    handle.db,
    'polling_checkpoints',
    ['payment_intents', 'transfers', 'refunds', 'payment_refunds'].map((stream) => ({
      stream,
      position: end,
      detail: null,
      updated_at: end,
    })),
  );
  bar.stop();
  const loadSeconds = (performance.now() - started) / 1000;
  if (handle.dialect === 'postgres') await advanceIdentitySequences(handle.db);
  const analyzeStarted = performance.now();
  await sql`analyze`.execute(handle.db);
  const analyzeSeconds = (performance.now() - analyzeStarted) / 1000;
  sqlite?.pragma('synchronous = NORMAL');
  console.log(
    `loaded ${items} items (${start.slice(0, 10)} to ${end.slice(0, 10)}), ${rows} rows in ${loadSeconds.toFixed(1)} s ` +
      `(${Math.round(rows / loadSeconds)} rows/s, ${((loadSeconds * 100_000) / items).toFixed(1)} s per 100k items); analyze ${analyzeSeconds.toFixed(1)} s`,
  );
  if (values.audit) {
    const report = await runAudit(handle.db, { truth, mode: 'sandbox', now: () => new Date(end) });
    console.log(formatAudit(report));
    process.exitCode = report.clean ? 0 : 1;
  }
  console.log(`database: ${url}`);
} finally {
  await handle.close();
}
