/**
 * Issue 23, "Proof": relay throughput to a local consumer and its CPU per event. Seeds N events
 * about N/2 items (two events per item, so order per item is in play) with a pending delivery
 * each to one endpoint, on a fresh SQLite file or a fresh PostgreSQL schema; a consumer in a
 * child process (node:http, answers 200 without verifying anything) receives them. The real
 * deliverer (`createRelayDeliverer`, the settings' concurrency, signing, the SSRF guard off as
 * in sandbox, one attempt row per POST) runs until every delivery is delivered. Reports
 * events/s (deliverer start to the last delivery recorded) and this process's CPU per event
 * (process.cpuUsage: the deliverer, its database driver, and the bench's progress query every
 * 250 ms), and writes them to docs/performance.md.
 *
 * Usage: npm run bench:relay [-- --events 2000] [--dialect sqlite|postgres] [--concurrency 16]
 *          [--no-write] [--label TEXT]
 *        PostgreSQL: PAYSYNC_BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig } from '../src/config/index.ts';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../src/db/index.ts';
import { systemClock } from '../src/lifecycle/index.ts';
import { createLogger } from '../src/logger.ts';
import { createRelayDeliverer, newEndpointSecret } from '../src/relay/index.ts';
import { appendPerformanceRow } from './performance-doc.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '2000' },
    dialect: { type: 'string', default: 'sqlite' },
    concurrency: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    label: { type: 'string', default: '' },
  },
});
const events = Number(values.events);
if (!Number.isInteger(events) || events < 1) {
  console.error('--events must be a whole number of at least 1');
  process.exit(2);
}
if (values.dialect !== 'sqlite' && values.dialect !== 'postgres') {
  console.error('--dialect must be sqlite or postgres');
  process.exit(2);
}
const relaySettings = {
  ...loadConfig({}).relay,
  ...(values.concurrency !== undefined ? { concurrency: Number(values.concurrency) } : {}),
};

/** The consumer: a child process, so its CPU is not counted as the relay's. */
function startConsumer(): Promise<{ url: string; stop(): void }> {
  const code = `
    const http = require('node:http');
    const server = http.createServer((req, res) => {
      req.on('data', () => {});
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    server.keepAliveTimeout = 1000;
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
  `;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (chunk: Buffer) =>
      resolve({
        url: `http://127.0.0.1:${chunk.toString().trim()}/relay`,
        stop: () => child.kill(),
      }),
    );
  });
}

const dir = mkdtempSync(join(tmpdir(), 'paysync-bench-relay-'));
const postgresUrl =
  process.env.PAYSYNC_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_relay_${randomBytes(4).toString('hex')}`;
let admin: DatabaseHandle | undefined;
let database: DatabaseHandle;
if (values.dialect === 'postgres') {
  admin = createDatabase(postgresUrl, { poolSize: 1 });
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  database = createDatabase(postgresUrl, {
    searchPath: schema,
    poolSize: relaySettings.concurrency + 4,
  });
} else {
  database = createDatabase(`sqlite:${join(dir, 'bench.db')}`);
}
const consumer = await startConsumer();
const logger = createLogger({ level: 'warn', pretty: false });

try {
  const db = database.db;
  await migrateToLatest(db);
  const createdAt = systemClock().toISOString();
  const endpoint = await db
    .insertInto('relay_endpoints')
    .values({
      endpoint_id: 'ep_bench',
      url: consumer.url,
      description: null,
      event_types: null,
      secret: newEndpointSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      last_success_at: null,
      created_at: createdAt,
      updated_at: createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const items = Math.max(1, Math.floor(events / 2));
  const data = JSON.stringify({
    id: 'tr_bench',
    amount: 125_000,
    currency: 'XOF',
    status: 'successful',
    previous_status: 'pending',
    fee: 1250,
    journals: ['jr_1', 'jr_2'],
  });
  for (let start = 0; start < events; start += 500) {
    const count = Math.min(500, events - start);
    const rows = await db
      .insertInto('relay_events')
      .values(
        Array.from({ length: count }, (_, n) => ({
          event_id: `evt_bench${start + n}`,
          type: 'transfer.succeeded',
          subject: `transfer:tr_${(start + n) % items}`,
          dedupe_key: `bench:${start + n}`,
          environment: 'sandbox',
          occurred_at: createdAt,
          data,
          created_at: createdAt,
        })),
      )
      .returning(['id', 'subject'])
      .execute();
    await db
      .insertInto('relay_deliveries')
      .values(
        rows.map((row) => ({
          endpoint_id: endpoint.id,
          event_id: row.id,
          subject: row.subject,
          state: 'pending',
          next_attempt_at: createdAt,
          claimed_until: null,
          last_attempt_at: null,
          last_status: null,
          last_error: null,
          finished_at: null,
          created_at: createdAt,
        })),
      )
      .execute();
  }
  if (values.dialect === 'postgres') await sql`analyze`.execute(db);
  const loadBefore = loadavg()[0]!.toFixed(2);

  const deliverer = createRelayDeliverer({
    db,
    settings: relaySettings,
    environment: 'sandbox',
    logger,
    now: systemClock,
    pollMs: 1000,
  });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await deliverer.start();
  for (;;) {
    const { count } = await db
      .selectFrom('relay_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('state', '=', 'pending')
      .executeTakeFirstOrThrow();
    if (Number(count) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await deliverer.stop();
  const cpuMsPerEvent = (cpu.user + cpu.system) / 1000 / events;
  const perSecond = events / seconds;
  const { attempts } = await db
    .selectFrom('relay_attempts')
    .select((eb) => eb.fn.countAll<number>().as('attempts'))
    .executeTakeFirstOrThrow();
  const dialect = values.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite';
  console.log(
    [
      `relay: ${events} events (${items} items) to one local consumer on ${dialect}, concurrency ${relaySettings.concurrency}`,
      `${perSecond.toFixed(0)} events/s (${seconds.toFixed(1)} s); ${Number(attempts)} attempts`,
      `CPU ${(cpu.user / 1e6 + cpu.system / 1e6).toFixed(2)} s: ${cpuMsPerEvent.toFixed(2)} ms per event`,
    ].join('\n'),
  );
  if (!values['no-write']) {
    const label = values.label ? ` (${values.label})` : '';
    const row = `| ${new Date().toISOString().slice(0, 16)}Z${label} | ${dialect} | ${events} | ${relaySettings.concurrency} | ${perSecond.toFixed(0)} | ${cpuMsPerEvent.toFixed(2)} | ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, load ${loadBefore} |`;
    const file = appendPerformanceRow({
      marker: '<!-- bench:relay:rows (appended by `npm run bench:relay`) -->',
      header: [
        '## Relay delivery (`npm run bench:relay`)',
        '',
        'Events delivered per second by one deliverer to a local consumer (a child process answering 200), from the deliverer’s start to the last delivery recorded, and the CPU of the delivering process per event (signing, POST, the attempt row and the delivery update). Two events per item, so the order per item is in play. Target: at least the pipeline’s settled items per second (~150–250/s). Newest last.',
        '',
        '| Run | Database | Events | Concurrency | Events/s | CPU ms / event | Machine |',
        '| --- | --- | ---: | ---: | ---: | ---: | --- |',
      ],
      row,
    });
    console.log(`wrote ${file}`);
  }
} finally {
  consumer.stop();
  await database.close().catch(() => undefined);
  if (admin) {
    await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db).catch(() => undefined);
    await admin.close();
  }
  rmSync(dir, { recursive: true, force: true });
}
