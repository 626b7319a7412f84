/**
 * Issue 22, retention: how long one pruning batch holds the database on a table of 100,000+
 * rows, on SQLite and on PostgreSQL. Seeds a fresh database per dialect with `--rows` processed
 * inbox rows (1 KiB bodies, processed 40 days ago) and as many consumed outbox rows, then runs
 * the retention loop (`pruneTables`, the same function as the scheduled task) with the default
 * periods and `--batch` rows per batch, and prints per table: rows, batches, the longest batch
 * and the total time. The target: no batch over 100 ms (docs/retention.md).
 *
 * Usage: npx tsx bench/retention-batch.ts [--rows 100000] [--batch 500] [--dialect sqlite|postgres|both]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig } from '../src/config/index.ts';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../src/db/index.ts';
import { insertInboxEvents, type NewInboxEvent } from '../src/inbox/index.ts';
import { pruneTables } from '../src/retention/index.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    batch: { type: 'string', default: '500' },
    dialect: { type: 'string', default: 'both' },
  },
});
const rows = Number(values.rows);
const batch = Number(values.batch);
if (!Number.isInteger(rows) || rows < 1000 || !Number.isInteger(batch) || batch < 1) {
  console.error('--rows must be a whole number of at least 1000, --batch at least 1');
  process.exit(2);
}
const POSTGRES_URL =
  process.env.PAYSYNC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NOW = new Date('2030-03-01T12:00:00.000Z');
const OLD = new Date(NOW.getTime() - 40 * 86_400_000);
const BODY = randomBytes(512).toString('hex');

async function seed(handle: DatabaseHandle): Promise<void> {
  const chunk = 1000;
  for (let start = 0; start < rows; start += chunk) {
    const events: NewInboxEvent[] = [];
    for (let i = start; i < Math.min(rows, start + chunk); i += 1) {
      events.push({
        dedupeKey: `event:evt_${i}`,
        eventId: `evt_${i}`,
        eventType: 'transfer.updated',
        rawBody: Buffer.from(`{"id":"evt_${i}","pad":"${BODY}"}`),
        headers: { 'webhook-id': `evt_${i}` },
        receivedAt: new Date(OLD.getTime() + i),
        // Stored processed at once (an event about nothing in the books): old enough to prune.
        ignored: true,
      });
    }
    await insertInboxEvents(handle.db, events);
    const at = new Date(OLD.getTime() + start).toISOString();
    const values = Array.from(
      { length: Math.min(chunk, rows - start) },
      (_, i) => sql`(${'receipt'}, ${`{"n":${start + i}}`}, ${at}, ${at}, ${at}, ${at})`,
    );
    await sql`insert into outbox (kind, payload, created_at, available_at, dispatched_at, consumed_at)
      values ${sql.join(values)}`.execute(handle.db);
  }
}

async function run(dialect: 'sqlite' | 'postgres'): Promise<void> {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'paysync-retention-'));
    handle = createDatabase(`sqlite:${join(dir, 'paysync.db')}`);
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const schema = `bench_${randomBytes(4).toString('hex')}`;
    const admin = createDatabase(POSTGRES_URL, { poolSize: 1 });
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    handle = createDatabase(POSTGRES_URL, { searchPath: schema, poolSize: 4 });
    drop = async () => {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
    };
  }
  try {
    await migrateToLatest(handle.db);
    const seeded = performance.now();
    await seed(handle);
    console.log(
      `${dialect}: seeded ${rows} inbox rows and ${rows} outbox rows in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
    );
    // A database that has run for a while has planner statistics; a fresh bulk load has none.
    await sql`analyze`.execute(handle.db);
    const settings = { ...loadConfig({}).retention, batchSize: batch };
    const started = performance.now();
    const results = await pruneTables(handle.db, settings, NOW, { pauseMs: 0 });
    const seconds = (performance.now() - started) / 1000;
    for (const r of results.filter((r) => r.pruned > 0)) {
      console.log(
        `${dialect}: ${r.table}: ${r.pruned} rows in ${r.batches} batches of ${batch}; longest batch ${r.longestBatchMs} ms`,
      );
    }
    const batches = results.reduce((sum, r) => sum + r.batches, 0);
    console.log(
      `${dialect}: all tables in ${seconds.toFixed(1)} s (${((seconds * 1000) / Math.max(1, batches)).toFixed(1)} ms per batch on average); load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
    );
  } finally {
    await handle.close();
    await drop();
  }
}

for (const dialect of values.dialect === 'both'
  ? (['sqlite', 'postgres'] as const)
  : [values.dialect as 'sqlite' | 'postgres']) {
  await run(dialect);
}
