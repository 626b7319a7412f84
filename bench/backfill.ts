import { startSimChild } from './sim-child.ts';
/**
 * Backfill throughput: items applied per second from list pages, and the daemon's CPU per item.
 * Seeds `paysync sim` (a child process, so its CPU is not ours) with settled transfers and
 * payment intents, then runs the backfill in this process with `perPage` 100 against a fresh
 * database, as `paysync backfill` does. Usage:
 *   npm run bench:backfill [-- --items 100000 | --short] [--dialect postgres] [--write]
 * `--write` appends a row to the "Backfill" table of docs/performance.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createDatabase, migrateToLatest } from '../src/db/index.ts';
import { createLogger } from '../src/logger.ts';
import { runBackfill } from '../src/polling/index.ts';
import { createUpstreamClient } from '../src/upstream/index.ts';
import { appendPerformanceRow } from './performance-doc.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    short: { type: 'boolean', default: false },
    dialect: { type: 'string', default: 'sqlite' },
    write: { type: 'boolean', default: false },
  },
});
const items = Number(values.items ?? (values.short ? 5_000 : 100_000));
const dialect = values.dialect === 'postgres' ? 'postgres' : 'sqlite';
const PER_PAGE = 100;
const DAYS = 10;
const credentials = { ApiKey: 'sk_bench_key', MerchantId: 'mch_bench' };

async function seed(url: string, body: unknown): Promise<void> {
  const response = await fetch(`${url}/__sim/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`seed: ${response.status} ${await response.text()}`);
}

async function openDatabase() {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'paysync-bench-backfill-'));
    const handle = createDatabase(`sqlite:${join(dir, 'paysync.db')}`);
    return { handle, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = process.env.PAYSYNC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const admin = createDatabase(url, { poolSize: 1 });
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  const handle = createDatabase(url, { searchPath: schema, poolSize: 4 });
  return {
    handle,
    drop: async () => {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
    },
  };
}

const to = new Date(Date.UTC(2026, 10, 20));
const from = new Date(to.getTime() - DAYS * 86_400_000);
const sim = await startSimChild({ apiKey: credentials.ApiKey, merchantId: credentials.MerchantId });
const { handle, drop } = await openDatabase();
try {
  await migrateToLatest(handle.db);
  const half = Math.floor(items / 2);
  const range = { from: from.toISOString(), to: new Date(to.getTime() - 1).toISOString() };
  await seed(sim.url, { kind: 'transfer', count: items - half, settle: true, ...range });
  await seed(sim.url, { kind: 'payment_intent', count: half, settle: true, ...range });

  const upstream = createUpstreamClient({
    baseUrl: sim.url,
    apiKey: credentials.ApiKey,
    merchantId: credentials.MerchantId,
    environment: 'sandbox',
    rps: 1_000_000,
    now: () => new Date(),
  });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const report = await runBackfill(
    {
      db: handle.db,
      upstream,
      logger: createLogger({ level: 'warn' }),
      environment: 'sandbox',
      now: () => new Date(),
    },
    { from, to: new Date(to.getTime() - 1), perPage: PER_PAGE },
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const applied = report.thisRun.seen;
  const itemsPerSecond = Math.round(applied / seconds);
  const cpuMsPerItem = (cpu.user + cpu.system) / 1000 / applied;
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  console.log(
    `backfill on ${dialect}: ${applied} items (${items} seeded), ${report.pages} pages of ${PER_PAGE}, ` +
      `${report.upstreamCalls} upstream calls, ${seconds.toFixed(2)} s`,
  );
  console.log(
    `  ${itemsPerSecond} items/s applied · daemon CPU ${cpuMsPerItem.toFixed(3)} ms/item · ` +
      `load ${load} · ${cpus().length} CPU(s) · node ${process.version}`,
  );
  if (values.write) {
    const file = appendPerformanceRow({
      marker: '<!-- bench:backfill:rows (appended by `npm run bench:backfill -- --write`) -->',
      header: [
        '## Backfill (`npm run bench:backfill`)',
        '',
        '| Date | Dialect | Items | Items/s applied | Daemon CPU ms/item | Upstream calls | Load (1/5/15) |',
        '| ---- | ------- | ----: | --------------: | -----------------: | -------------: | ------------- |',
      ],
      row: `| ${new Date().toISOString().slice(0, 10)} | ${dialect} | ${applied} | ${itemsPerSecond} | ${cpuMsPerItem.toFixed(3)} | ${report.upstreamCalls} | ${load} |`,
    });
    console.log(`  row appended to ${file}`);
  }
} finally {
  await handle.close();
  await drop();
  await sim.stop();
}
