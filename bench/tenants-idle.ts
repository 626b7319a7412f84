/**
 * Issue 25, acceptance 4: what each extra tenant costs a process serving several, idle. For
 * each tenant count (default 1, 5, 20 and 50) it writes a tenants file (each tenant its own
 * simulator account, SQLite file or PostgreSQL schema), runs `paysync tenants migrate`, starts
 * one `paysync start` without `--tenant`, waits until `/readyz` answers 200 for every tenant,
 * then lets it sit idle (`--idle-seconds`, default 30) and reads:
 * - the process's RSS and its V8 heap in use (`/metrics`), the median of one sample a second
 *   over the idle time (RSS is mostly the heap V8 reserves, so the heap in use shows a
 *   tenant's own cost more closely);
 * - the Redis connections it holds (`CLIENT LIST` before and after the start);
 * - on PostgreSQL, the server connections it holds (`pg_stat_activity`, counted by the run's own
 *   `application_name`): at the end of the idle time, and the most seen at once from the start
 *   (issue 42, item 4: 50 tenants within 60), also in a table of their own.
 * The cost of an extra tenant is the difference from one tenant, divided by the extra tenants.
 * The simulators run inside this script, so their memory is not counted.
 *
 * Usage: npm run bench:tenants [-- --tenants 1,5,20,50] [--dialect sqlite|postgres]
 *          [--idle-seconds 30] [--no-write] [--label TEXT]
 *        (PostgreSQL: the server of PAYSYNC_BENCH_DATABASE_URL, default
 *        postgres://postgres@127.0.0.1:5432/test; the schemas are dropped afterwards)
 *
 * Writes a row per tenant count to docs/performance.md ("Idle cost of a tenant").
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { createDatabase } from '../src/db/index.ts';
import { reasonOf } from '../src/error-reason.ts';
import { freePort } from '../src/lifecycle/index.ts';
import { generateWebhookSecret, startSimulator, type RunningSimulator } from '../src/sim/index.ts';
import { benchCli } from './bench-cli.ts';
import { appendPerformanceRow } from './performance-doc.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    tenants: { type: 'string', default: '1,5,20,50' },
    dialect: { type: 'string', default: 'sqlite' },
    'idle-seconds': { type: 'string', default: '30' },
    'no-write': { type: 'boolean', default: false },
    label: { type: 'string' },
  },
});
const counts = values.tenants.split(',').map(Number);
if (counts.length === 0 || counts.some((n) => !Number.isInteger(n) || n < 1 || n > 100)) {
  console.error('--tenants must be whole numbers from 1 to 100, comma-separated (1,5,20)');
  process.exit(2);
}
const dialect = values.dialect;
if (dialect !== 'sqlite' && dialect !== 'postgres') {
  console.error('--dialect must be sqlite or postgres');
  process.exit(2);
}
const idleSeconds = Number(values['idle-seconds']);
if (!Number.isInteger(idleSeconds) || idleSeconds < 5) {
  console.error('--idle-seconds must be a whole number of at least 5');
  process.exit(2);
}
const redisUrl = process.env.PAYSYNC_REDIS_URL ?? 'redis://127.0.0.1:6379';
const postgresUrl =
  process.env.PAYSYNC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const rssMb = (pid: number) => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
};

/** `paysync_nodejs_heap_size_used_bytes` of the process's `/metrics`, in MB. */
async function heapUsedMb(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const match = /^paysync_nodejs_heap_size_used_bytes (\d+)/m.exec(text);
  return match ? Number(match[1]) / 1024 / 1024 : Number.NaN;
}

const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
const admin = dialect === 'postgres' ? createDatabase(postgresUrl, { poolSize: 1 }) : undefined;
const redisClients = async () =>
  String(await redis.call('CLIENT', 'LIST'))
    .split('\n')
    .filter(Boolean).length;
/** The server connections of one run's `paysync start` (its own application_name). */
const serverConnections = async (applicationName: string) => {
  if (!admin) return 0;
  try {
    const { rows } = await sql<{
      count: string;
    }>`select count(*) as count from pg_stat_activity where application_name = ${applicationName}`.execute(
      admin.db,
    );
    return Number(rows[0]?.count ?? 0);
  } catch (error) {
    throw new Error(`the bench could not count PostgreSQL connections: ${reasonOf(error)}`);
  }
};

interface Measured {
  readonly tenants: number;
  readonly rssMb: number;
  readonly heapMb: number;
  readonly redisConnections: number;
  readonly serverConnections: number;
  /** The most server connections seen at once, sampled every 250 ms from start to the end. */
  readonly peakServerConnections: number;
  readonly readySeconds: number;
}

function withApplicationName(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', `paysync-bench-${randomBytes(3).toString('hex')}`);
  return parsed.toString();
}

const sims: RunningSimulator[] = [];
async function simulators(count: number): Promise<RunningSimulator[]> {
  while (sims.length < count) sims.push(await startSimulator({ seed: sims.length + 1 }));
  return sims.slice(0, count);
}

async function measure(count: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'paysync-tenants-idle-'));
  const suffix = randomBytes(3).toString('hex');
  const name = (index: number) => `t${String(index + 1).padStart(2, '0')}`;
  const schemas = Array.from({ length: count }, (_, index) => `bench_${suffix}_${name(index)}`);
  const services = await simulators(count);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PAYSYNC_TENANTS_FILE: 'tenants.yaml',
    PAYSYNC_REDIS_URL: redisUrl,
    PAYSYNC_QUEUE_PREFIX: `paysync-bench-tenants-${suffix}`,
    PAYSYNC_PORT: String(await freePort()),
    // Metrics are on the ops port.
    PAYSYNC_OPS_PORT: String(await freePort()),
    PAYSYNC_LOG_LEVEL: 'warn',
    // Its own application_name: only this run's connections are counted, whatever else the
    // server serves.
    ...(dialect === 'postgres' ? { PAYSYNC_DATABASE_URL: withApplicationName(postgresUrl) } : {}),
  };
  const entries = services.map((sim, index) => {
    env[`KEY_${index}`] = sim.credentials.apiKey;
    env[`SECRET_${index}`] = generateWebhookSecret();
    return `  - name: ${name(index)}
    merchant_id: ${sim.credentials.merchantId}
    environment: sandbox
    service_url: ${sim.url}
    api_key: { env: KEY_${index} }
    webhook_secret: { env: SECRET_${index} }
    database: ${dialect === 'postgres' ? `{ postgres_schema: ${schemas[index]} }` : `{ sqlite: ./${name(index)}.db }`}
`;
  });
  writeFileSync(join(dir, 'tenants.yaml'), `tenants:\n${entries.join('')}`);
  try {
    const migrated = spawnSync(
      process.execPath,
      [join(process.cwd(), 'bin/paysync.js'), 'tenants', 'migrate'],
      {
        cwd: dir,
        env,
        encoding: 'utf8',
      },
    );
    if (migrated.status !== 0)
      throw new Error(`tenants migrate failed: ${migrated.stdout}${migrated.stderr}`);
    const redisBefore = await redisClients();
    const applicationName = new URL(env.PAYSYNC_DATABASE_URL ?? postgresUrl).searchParams.get(
      'application_name',
    )!;
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling && admin) {
        peak = Math.max(peak, await serverConnections(applicationName));
        await sleep(250);
      }
    })();
    const started = Date.now();
    const child = spawn(process.execPath, [join(process.cwd(), 'bin/paysync.js'), 'start'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      for (;;) {
        if (child.exitCode !== null) throw new Error(`paysync start exited with ${child.exitCode}`);
        const ready = await fetch(`http://127.0.0.1:${env.PAYSYNC_PORT}/readyz`).then(
          (response) => response.status === 200,
          () => false,
        );
        if (ready) break;
        if (Date.now() - started > 120_000) throw new Error('paysync start not ready in 120 s');
        await sleep(250);
      }
      const readySeconds = (Date.now() - started) / 1000;
      const samples: number[] = [];
      const heap: number[] = [];
      for (let second = 0; second < idleSeconds; second += 1) {
        await sleep(1000);
        samples.push(rssMb(child.pid!));
        heap.push(await heapUsedMb(Number(env.PAYSYNC_OPS_PORT)));
      }
      return {
        tenants: count,
        rssMb: median(samples),
        heapMb: median(heap),
        redisConnections: (await redisClients()) - redisBefore,
        serverConnections: await serverConnections(applicationName),
        peakServerConnections: peak,
        readySeconds,
      };
    } finally {
      sampling = false;
      await sampler;
      child.kill('SIGTERM');
      await exited;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (admin) {
      for (const schema of schemas)
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
    }
    const keys = await redis.keys(`${env.PAYSYNC_QUEUE_PREFIX}*`);
    for (let at = 0; at < keys.length; at += 500) await redis.del(...keys.slice(at, at + 500));
  }
}

const loadBefore = loadavg()
  .map((value) => value.toFixed(2))
  .join(' / ');
const results: Measured[] = [];
/** Tenant counts the process could not serve, with why (a database out of connections, say). */
const failures: { tenants: number; reason: string }[] = [];
try {
  for (const count of counts) {
    let result: Measured;
    try {
      result = await measure(count);
    } catch (error) {
      const reason = reasonOf(error).split('\n')[0]!;
      failures.push({ tenants: count, reason });
      console.log(`${count} tenant(s): FAILED: ${reason}`);
      continue;
    }
    results.push(result);
    console.log(
      `${count} tenant(s): RSS ${result.rssMb.toFixed(0)} MB idle (V8 heap in use ${result.heapMb.toFixed(0)} MB), ${result.redisConnections} Redis connection(s), ${result.serverConnections} PostgreSQL connection(s) idle (peak ${result.peakServerConnections}), ready in ${result.readySeconds.toFixed(1)} s`,
    );
  }
} finally {
  for (const sim of sims) await sim.stop();
  redis.disconnect();
  await admin?.close();
}
const base = results[0];
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, load ${loadBefore}`;
const label = values.label ? ` (${values.label})` : '';
const header = [
  '## Idle cost of a tenant (`npm run bench:tenants`)',
  '',
  'Issue 25: one `paysync start` serving N tenants, idle after every tenant is ready (see the script header). "Each extra tenant" is the difference from the smallest count, divided by the extra tenants.',
  '',
  '| Run | Database | Tenants | RSS MB (idle median) | V8 heap in use MB | Redis connections | PostgreSQL connections | Ready after | Each extra tenant | Machine |',
  '| --- | -------- | ------: | -------------------: | ----------------: | ----------------: | ---------------------: | ----------: | ----------------- | ------- |',
];
const marker = '<!-- bench:tenants:rows (appended by `npm run bench:tenants`) -->';
const run = `${new Date().toISOString().slice(0, 16)}Z${label}`;
const database = dialect === 'postgres' ? 'PostgreSQL' : 'SQLite';
for (const result of base ? results : []) {
  const extra = result.tenants - base!.tenants;
  const per = (value: number, baseValue: number, digits: number) =>
    extra > 0 ? ((value - baseValue) / extra).toFixed(digits) : '—';
  const perTenant = `${per(result.rssMb, base!.rssMb, 1)} MB RSS, ${per(result.heapMb, base!.heapMb, 1)} MB heap, ${per(result.redisConnections, base!.redisConnections, 1)} Redis, ${per(result.serverConnections, base!.serverConnections, 1)} PostgreSQL`;
  console.log(`${result.tenants} tenant(s): each extra tenant ${perTenant}`);
  if (values['no-write']) continue;
  appendPerformanceRow({
    marker,
    header,
    row: `| ${run} | ${database} | ${result.tenants} | ${result.rssMb.toFixed(0)} | ${result.heapMb.toFixed(0)} | ${result.redisConnections} | ${dialect === 'postgres' ? result.serverConnections : '—'} | ${result.readySeconds.toFixed(1)} s | ${perTenant} | ${machine} |`,
  });
}
if (dialect === 'postgres' && !values['no-write']) {
  for (const result of results) {
    appendPerformanceRow({
      marker:
        '<!-- bench:tenants:postgres-connections (appended by `npm run bench:tenants -- --dialect postgres`) -->',
      header: [
        '## Tenants on one PostgreSQL server (`npm run bench:tenants`)',
        '',
        "Issue 42, item 4: the server connections one `paysync start` holds for N tenants whose books are schemas of one server, counted by the run's own `application_name` in `pg_stat_activity`: the most seen at once (a sample every 250 ms from the start to the end of the idle time), and those held at the end. The target: 50 tenants within 60.",
        '',
        '| Run | Tenants | Peak server connections | Held idle | Ready after | Machine |',
        '| --- | ------: | ----------------------: | --------: | ----------: | ------- |',
      ],
      row: `| ${run} | ${result.tenants} | ${result.peakServerConnections} | ${result.serverConnections} | ${result.readySeconds.toFixed(1)} s | ${machine} |`,
    });
  }
}
for (const failure of values['no-write'] ? [] : failures) {
  appendPerformanceRow({
    marker,
    header,
    row: `| ${run} | ${database} | ${failure.tenants} | failed: ${failure.reason.replaceAll('|', '/')} | | | | | | ${machine} |`,
  });
}
if (failures.length > 0) process.exitCode = 1;
