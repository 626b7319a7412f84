/**
 * Issue 22, cost flat in data size: the ops surfaces on a year of books answer within the same
 * bound as on an empty database, or within 200 ms, whichever is larger. Against a generated
 * database (`npm run bench:history`) and a fresh one holding only one day of the same traffic
 * (so a day's report or export reads as many rows in both, and only the other days differ),
 * times the median of `--runs` runs of:
 * - the CLI, each as its own process as a user runs it (so Node's start-up is in every figure):
 *   `show <id>`, `list intents|transfers|refunds`, `balances --cached`, `report --date <day>`,
 *   `export` of that day in each format, and `audit --since` when the CLI has it (after a clean
 *   audit recorded at the day's start, as nightly audits leave: see recordNightlyAudit);
 * - every GET route of `/api/v1` and every dashboard page, on one `paysync serve` per database.
 * The bound is max(1.25 × the empty database's median, 200 ms): the 25 % is the noise of a
 * shared machine between two medians of the same work. Writes the table to docs/performance.md.
 *
 * Usage: npm run bench:big-books -- --database <sqlite file | postgres://…?options=-c search_path=…>
 *          [--runs 5] [--no-write]
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../src/db/index.ts';
import { freePort } from '../src/lifecycle/index.ts';
import { OPS_ROUTES } from '../src/ops/index.ts';
import { generateApiKey, generateMerchantId } from '../src/sim/index.ts';
import {
  advanceIdentitySequences,
  generateBooks,
  insertChunk,
} from '../test/support/seed-books.ts';
import { waitForHealth } from '../test/support/wait-for-health.ts';
import { appendPerformanceRow } from './performance-doc.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    runs: { type: 'string', default: '5' },
    'no-write': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs "${values.runs}" must be a whole number of at least 1`);
  process.exit(2);
}
const given = values.database;
const postgres = given !== undefined && /^postgres(ql)?:\/\//.test(given);
if (given === undefined || (!postgres && !existsSync(given.replace(/^sqlite:/, '')))) {
  console.error(
    '--database must name a generated SQLite file or a postgres:// URL (npm run bench:history prints it)',
  );
  process.exit(2);
}
const bigUrl = postgres ? given : `sqlite:${resolve(given.replace(/^sqlite:/, ''))}`;
const BIN = resolve(import.meta.dirname, '../bin/paysync.js');
const TOKEN = `big-books-${randomBytes(6).toString('hex')}`;
const FLOOR_MS = 200;
const NOISE = 1.25;
const dir = mkdtempSync(join(tmpdir(), 'paysync-big-books-'));
const prefix = `paysync-big-books-${randomBytes(4).toString('hex')}`;

function baseEnv(databaseUrl: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    PAYSYNC_DATABASE_URL: databaseUrl,
    PAYSYNC_REDIS_URL: process.env.PAYSYNC_REDIS_URL ?? 'redis://127.0.0.1:6379',
    PAYSYNC_QUEUE_PREFIX: prefix,
    PAYSYNC_UPSTREAM_URL: 'http://127.0.0.1:9',
    PAYSYNC_API_KEY: generateApiKey(),
    PAYSYNC_MERCHANT_ID: generateMerchantId(),
    PAYSYNC_WEBHOOK_SCHEME: 'none',
    PAYSYNC_EXPORT_DIR: join(dir, 'exports'),
    PAYSYNC_BOOKS_TIMEZONE: 'UTC',
    PAYSYNC_LOG_LEVEL: 'warn',
  };
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The books' facts a run needs: the day to read and an item of that day. */
interface Books {
  readonly url: string;
  readonly day: string;
  readonly itemId: string;
  readonly items: number;
}

async function describeBooks(
  handle: DatabaseHandle,
  url: string,
  givenDay?: string,
): Promise<Books> {
  const row = (
    await sql<{ last: string | null; items: number }>`select
        (select max(created_at) from transfers) as last,
        (select count(*) from transfers) + (select count(*) from payment_intents)
          + (select count(*) from refunds) as items`.execute(handle.db)
  ).rows[0]!;
  if (!row.last)
    throw new Error(`${url} holds no transfers: generate it with npm run bench:history`);
  // The last day of the books (bench:history's year ends at midnight, so that day is whole).
  // Not the day before it: `audit --since <day>` reads everything from the day on, and the
  // one-day books hold nothing after their day, so on the big books it must not either.
  const day = givenDay ?? row.last.slice(0, 10);
  const item = (
    await sql<{
      id: string;
    }>`select id from transfers where created_at >= ${day} order by created_at limit 1`.execute(
      handle.db,
    )
  ).rows[0]!;
  return { url, day, itemId: item.id, items: Number(row.items) };
}

/**
 * A clean audit recorded at the start of `day`, as a merchant who audits nightly
 * (`paysync audit --since last-clean`) has on file, unless that one is there already (one of an
 * earlier day would make `--since` read from that day on): its watermark
 * is the highest journal and inbox ids before the day (the generator's ids follow time). Without
 * it `audit --since <day>` finds no clean audit before the day and reads every row, which is the
 * full audit, not the incremental one this measures.
 */
async function recordNightlyAudit(handle: DatabaseHandle, day: string): Promise<void> {
  const startedAt = `${day}T00:00:00.000Z`;
  const existing = await handle.db
    .selectFrom('audit_runs')
    .select('id')
    .where('started_at', '=', startedAt)
    .executeTakeFirst();
  if (existing) return;
  const row = (
    await sql<{ journal: string | null; inbox: string | null }>`select
        (select cast(max(id) as text) from journals where effective_at < ${startedAt}) as journal,
        (select cast(max(id) as text) from webhook_inbox
          where status = 'processed' and received_at < ${startedAt}) as inbox`.execute(handle.db)
  ).rows[0]!;
  await handle.db
    .insertInto('audit_runs')
    .values({
      mode: 'incremental',
      started_at: startedAt,
      finished_at: startedAt,
      scope_from: null,
      max_journal_id: Number(row.journal ?? 0),
      max_inbox_id: Number(row.inbox ?? 0),
      items: 0,
      journals: 0,
    })
    .execute();
}

/** A fresh database holding one day of the same traffic as the big books' `day`. */
async function oneDayBooks(
  big: Books,
  days: number,
): Promise<{ books: Books; drop(): Promise<void> }> {
  let url: string;
  let handle: DatabaseHandle;
  let drop = async () => undefined as void;
  if (postgres) {
    const schema = `big_books_empty_${randomBytes(4).toString('hex')}`;
    const server = new URL(bigUrl);
    server.searchParams.delete('options');
    const admin = createDatabase(server.toString(), { poolSize: 1 });
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    drop = async () => {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
    };
    server.searchParams.set('options', `-c search_path=${schema}`);
    url = server.toString();
    handle = createDatabase(server.toString().replace(/\?.*$/, ''), { searchPath: schema });
  } else {
    url = `sqlite:${join(dir, 'one-day.db')}`;
    handle = createDatabase(url);
  }
  try {
    await migrateToLatest(handle.db);
    const start = `${big.day}T00:00:00.000Z`;
    const end = new Date(Date.parse(start) + 86_400_000).toISOString();
    await generateBooks(
      {
        items: Math.max(100, Math.round(big.items / days)),
        start,
        end,
        eventsPerItem: 3,
        bodyBytes: 700,
        everything: true,
      },
      (chunk) => insertChunk(handle.db, chunk).then(() => undefined),
    );
    if (postgres) await advanceIdentitySequences(handle.db);
    await recordNightlyAudit(handle, big.day);
    await sql`analyze`.execute(handle.db);
    return { books: await describeBooks(handle, url, big.day), drop };
  } finally {
    await handle.close();
  }
}

interface Measure {
  readonly name: string;
  run(books: Books): Promise<number>;
}

function cli(
  name: string,
  args: (books: Books) => string[],
  /** Exit codes that are answers, not failures (the report's 3 BREAKS and 4 INCOMPLETE). */
  answers: readonly number[] = [0],
): Measure {
  return {
    name,
    async run(books) {
      const started = performance.now();
      const result = spawnSync(process.execPath, [BIN, ...args(books)], {
        env: baseEnv(books.url),
        encoding: 'utf8',
        maxBuffer: 512 * 1024 * 1024,
      });
      const ms = performance.now() - started;
      if (!answers.includes(result.status ?? -1)) {
        throw new Error(
          `paysync ${args(books).join(' ')}: exit ${result.status}: ${result.stderr.trim().slice(-300)}`,
        );
      }
      return ms;
    },
  };
}

const dayAfter = (day: string) => new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
const hasAuditSince = spawnSync(process.execPath, [BIN, 'audit', '--help'], {
  encoding: 'utf8',
}).stdout.includes('--since');

const commands: Measure[] = [
  cli('paysync show <id>', (b) => ['show', b.itemId, '--json']),
  ...['intents', 'transfers', 'refunds'].map((kind) =>
    cli(`paysync list ${kind}`, () => ['list', kind, '--json']),
  ),
  cli('paysync balances --cached', () => ['balances', '--cached', '--json']),
  cli('paysync report --date <day>', (b) => ['report', '--date', b.day, '--json'], [0, 3, 4]),
  ...['csv', 'jsonl', 'hledger', 'beancount'].map((format) =>
    cli(`paysync export (one day, ${format})`, (b) => [
      'export',
      '--from',
      b.day,
      '--to',
      dayAfter(b.day),
      '--format',
      format,
      '--out',
      join(dir, `day.${format}`),
    ]),
  ),
  ...(hasAuditSince
    ? [
        cli('paysync audit --since <day>', (b: Books) => [
          'audit',
          '--since',
          `${b.day}T00:00:00.000Z`,
        ]),
      ]
    : []),
];

/** Runs `paysync serve` on the books while `work` times its routes and pages. */
async function withServer<T>(
  books: Books,
  work: (url: string, cookie: string) => Promise<T>,
): Promise<T> {
  const port = await freePort();
  // The ops API and the dashboard are on the ops port, not the receiver's.
  const opsPort = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...baseEnv(books.url),
      PAYSYNC_PORT: String(port),
      PAYSYNC_OPS_PORT: String(opsPort),
      PAYSYNC_ADMIN_TOKEN: TOKEN,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${opsPort}`;
  try {
    await waitForHealth(url, { child, timeoutMs: 60_000 });
    const login = await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${TOKEN}`,
      redirect: 'manual',
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    return await work(url, cookie);
  } finally {
    const exited = new Promise((done) => child.on('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
}

function httpMeasures(books: Books): { name: string; path: string; dashboard: boolean }[] {
  const routes = OPS_ROUTES.filter(
    (r) => r.method === 'get' && r.response !== 'html' && r.response !== 'download',
  ).map((route) => ({
    name: `GET ${route.path}`,
    path: route.path
      .replace('{id}', route.path.startsWith('/api/v1/items') ? books.itemId : '1')
      .replace('{date}', books.day),
    dashboard: false,
  }));
  const pages = ['/', '/items/{id}', '/balances', '/pipeline', '/exports'].map((page) => ({
    name: `dashboard ${page}`,
    path: page.replace('{id}', books.itemId),
    dashboard: true,
  }));
  return [...routes, ...pages];
}

/**
 * Each sample runs on the one-day books and then on the big ones, back to back, so the load of
 * a shared machine drifts over both alike instead of over one database's whole series.
 */
async function timeHttp(small: Books, big: Books): Promise<Map<string, [number, number]>> {
  return withServer(small, (smallUrl, smallCookie) =>
    withServer(big, async (bigUrl, bigCookie) => {
      const figures = new Map<string, [number, number]>();
      const smallMeasures = httpMeasures(small);
      const bigMeasures = httpMeasures(big);
      for (const [index, measure] of smallMeasures.entries()) {
        const samples: [number[], number[]] = [[], []];
        for (let run = 0; run < runs; run += 1) {
          for (const [side, url, cookie, path] of [
            [0, smallUrl, smallCookie, measure.path],
            [1, bigUrl, bigCookie, bigMeasures[index]!.path],
          ] as const) {
            const headers: Record<string, string> = measure.dashboard
              ? { cookie }
              : { authorization: `Bearer ${TOKEN}` };
            const started = performance.now();
            const response = await fetch(`${url}${path}`, { headers });
            await response.arrayBuffer();
            samples[side].push(performance.now() - started);
            if (response.status >= 500) throw new Error(`${measure.name}: HTTP ${response.status}`);
          }
        }
        figures.set(measure.name, [median(samples[0]), median(samples[1])]);
      }
      return figures;
    }),
  );
}

async function timeCli(small: Books, big: Books): Promise<Map<string, [number, number]>> {
  const figures = new Map<string, [number, number]>();
  for (const measure of commands) {
    const samples: [number[], number[]] = [[], []];
    for (let run = 0; run < runs; run += 1) {
      samples[0].push(await measure.run(small));
      samples[1].push(await measure.run(big));
    }
    figures.set(measure.name, [median(samples[0]), median(samples[1])]);
  }
  return figures;
}

const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(' / ');
const bigHandle = createDatabase(postgres ? bigUrl.replace(/\?.*$/, '') : bigUrl, {
  ...(postgres
    ? { searchPath: new URL(bigUrl).searchParams.get('options')?.replace(/^-c search_path=/, '') }
    : {}),
});
let empty: { books: Books; drop(): Promise<void> } | undefined;
try {
  const big = await describeBooks(bigHandle, bigUrl);
  await recordNightlyAudit(bigHandle, big.day);
  await bigHandle.close();
  console.log(`big books: ${big.items} items; day ${big.day}; item ${big.itemId}`);
  empty = await oneDayBooks(big, 365);
  console.log(`one-day books: ${empty.books.items} items on ${empty.books.day}`);
  if (!hasAuditSince) console.log('paysync audit has no --since here: skipped');
  const results: { name: string; empty: number; big: number }[] = [];
  for (const [label, timer] of [
    ['CLI', timeCli],
    ['HTTP', timeHttp],
  ] as const) {
    console.log(`timing the ${label}, one-day and big books in turn…`);
    for (const [name, [small, large]] of await timer(empty.books, big)) {
      results.push({ name, empty: small, big: large });
    }
  }
  const rows = results.map((r) => {
    const bound = Math.max(r.empty * NOISE, FLOOR_MS);
    return { ...r, bound, pass: r.big <= bound };
  });
  const failed = rows.filter((r) => !r.pass).length;
  for (const r of rows) {
    console.log(
      `${r.pass ? 'pass' : 'FAIL'}  ${r.name.padEnd(42)} empty ${r.empty.toFixed(0).padStart(6)} ms  big ${r.big.toFixed(0).padStart(6)} ms  bound ${r.bound.toFixed(0)} ms`,
    );
  }
  console.log(`${rows.length - failed} of ${rows.length} within their bound`);
  if (!values['no-write']) {
    const run = `${new Date().toISOString().slice(0, 16)}Z, ${postgres ? 'PostgreSQL' : 'SQLite'}, ${big.items} items, ${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ') ?? '?'}, load ${load}`;
    const file = appendPerformanceRow({
      marker: '<!-- bench:big-books:rows (appended by `npm run bench:big-books`) -->',
      header: [
        '### Ops surfaces on a year of books (`npm run bench:big-books`)',
        '',
        'Median of each command (its own process, start-up included) and route on a database holding one day of traffic ("empty") and on the generated year ("big"); the bound is max(1.25 × empty, 200 ms). Newest last.',
        '',
        '| Run | Command or route | One day | Year | Bound | |',
        '| --- | --- | ---: | ---: | ---: | --- |',
      ],
      row: rows
        .map(
          (r) =>
            `| ${run} | ${r.name} | ${r.empty.toFixed(0)} ms | ${r.big.toFixed(0)} ms | ${r.bound.toFixed(0)} ms | ${r.pass ? 'pass' : 'FAIL'} |`,
        )
        .join('\n'),
    });
    console.log(`wrote ${file}`);
  }
  process.exitCode = failed === 0 ? 0 : 1;
} finally {
  await bigHandle.close().catch(() => undefined);
  await empty?.drop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
