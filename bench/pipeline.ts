import { cpuSeconds, peakRssMb } from './process-cpu.ts';
/**
 * Acceptance 7 of issue 8 (and the webhook-path figures of issue 12): the whole pipeline on the
 * 3-webhooks-per-item workload. `paysync sim` and `paysync start` run as child processes on a
 * fresh SQLite file (or `PAYSYNC_BENCH_DATABASE_URL`) and the local Redis. The simulator seeds
 * N transfers and N payment intents already settled; each sends 3 webhooks (created, pending,
 * successful) to the daemon. The run ends when every item is settled in the ledger and no
 * inbox row is open. Reports upstream calls per settled item (the daemon's
 * `paysync_upstream_requests_total`), settled items per second (seed call to the last inbox
 * row closed), CPU seconds per process (daemon and simulator from /proc, Redis from INFO) and
 * peak RSS, and writes them with the machine to docs/performance.md.
 *
 * Usage: npm run bench:pipeline [-- --items 1000 | --short] [--no-write]
 *          [--workers N] [--audit] [--cpu-prof DIR] [--label TEXT]
 *        (PAYSYNC_BENCH_SHORT=1 is the same as --short: 200 of each kind)
 *
 * `--workers N` runs the roles as ecosystem.config.cjs does instead of one `paysync start`:
 * one `serve`, one `schedule` and N `work` processes (CPU is their sum, RSS their largest).
 * `--audit` runs `paysync audit --truth` against the simulator after the run and fails the
 * bench when the books do not match the service. `--cpu-prof DIR` writes a V8 CPU profile of
 * every paysync process and of the simulator into DIR (read them with bench/profile-top.ts).
 * `--node-flags="<flags>"` (with `=`: the flags start with a dash) starts every paysync
 * process and the simulator with those V8 or Node flags (some, such as `--optimize-for-size`,
 * are refused in NODE_OPTIONS).
 * `npm run bench:scaleout` is this bench on PostgreSQL with 1, 2 and 4 workers.
 *
 * `--database <file|url>` runs on a database that already holds books (a year of them from
 * `npm run bench:history`) instead of an empty one: a SQLite file is copied first, so the file
 * given stays as it was; a PostgreSQL URL (with its `options=-c search_path=…`) is used as is,
 * so the run's items are added to that schema. Progress counts only what the run adds.
 *
 * `--soak [--minutes 30] [--rate 200] [--sample-seconds 5] [--warm-up-minutes 3]` (also
 * `npm run bench:soak`) feeds settled items at a steady rate instead of one batch, samples the
 * daemon, the simulator, Redis and the database, and judges whether they stay flat: see
 * bench/pipeline-soak.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { takeBalanceSnapshot } from '../src/balances/index.ts';
import { createDatabase } from '../src/db/index.ts';
import { freePort } from '../src/lifecycle/index.ts';
import { createLogger } from '../src/logger.ts';
import { generateApiKey, generateMerchantId, generateWebhookSecret } from '../src/sim/index.ts';
import { createUpstreamClient } from '../src/upstream/index.ts';
import { appendPerformanceRow } from './performance-doc.ts';
import { runSoak } from './pipeline-soak.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    short: { type: 'boolean', default: process.env.PAYSYNC_BENCH_SHORT === '1' },
    'no-write': { type: 'boolean', default: false },
    label: { type: 'string', default: '' },
    'timeout-seconds': { type: 'string', default: '600' },
    workers: { type: 'string' },
    audit: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    soak: { type: 'boolean', default: false },
    minutes: { type: 'string', default: '30' },
    rate: { type: 'string', default: '200' },
    'sample-seconds': { type: 'string', default: '5' },
    'warm-up-minutes': { type: 'string', default: '3' },
    database: { type: 'string' },
    'node-flags': { type: 'string' },
  },
});
if (values.database !== undefined && values.audit) {
  console.error(
    '--audit compares with the simulator, which knows none of the books in --database: leave one out',
  );
  process.exit(2);
}
if (
  values.database !== undefined &&
  !/^postgres(ql)?:\/\//.test(values.database) &&
  !existsSync(values.database.replace(/^sqlite:/, ''))
) {
  console.error(
    `--database ${values.database}: no such SQLite file (give a file or a postgres:// URL)`,
  );
  process.exit(2);
}
const soak = values.soak
  ? {
      minutes: Number(values.minutes),
      rate: Number(values.rate),
      sampleSeconds: Number(values['sample-seconds']),
      warmUpMinutes: Number(values['warm-up-minutes']),
    }
  : undefined;
if (
  soak &&
  !(
    soak.minutes > 0 &&
    soak.rate > 0 &&
    soak.sampleSeconds > 0 &&
    soak.sampleSeconds <= 60 &&
    Number.isInteger(soak.warmUpMinutes) &&
    soak.warmUpMinutes >= 0
  )
) {
  console.error(
    '--minutes and --rate must be positive numbers, --sample-seconds from 1 to 60, --warm-up-minutes a whole number of 0 or more',
  );
  process.exit(2);
}
if (soak && (values.workers !== undefined || values.audit)) {
  console.error('--soak measures one `paysync start`: leave out --workers and --audit');
  process.exit(2);
}
const workerCount = values.workers === undefined ? undefined : Number(values.workers);
if (workerCount !== undefined && (!Number.isInteger(workerCount) || workerCount < 1)) {
  console.error('--workers must be a whole number of at least 1 (paysync work processes)');
  process.exit(2);
}
const profileArgs = [
  ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []),
  ...(values['node-flags']?.split(/\s+/).filter(Boolean) ?? []),
];
const perKind = Number(values.items ?? (values.short ? 200 : 1000));
if (!Number.isInteger(perKind) || perKind < 1) {
  console.error('--items must be a whole number of at least 1 (items of each kind)');
  process.exit(2);
}
const expectedItems = perKind * 2;
const redisUrl = process.env.PAYSYNC_REDIS_URL ?? 'redis://127.0.0.1:6379';
const timeoutMs = Number(values['timeout-seconds']) * 1000;

function waitFor(child: ChildProcess, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.on('exit', (code) =>
      reject(new Error(`${what} exited with ${code}: ${out.slice(-500)}`)),
    );
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const read = (key: string) => Number(new RegExp(`${key}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return read('used_cpu_sys') + read('used_cpu_user');
}

/** `paysync audit --truth` against the simulator: clean or not, and its last line. */
function audit(simUrl: string): { clean: boolean; line: string; output: string } {
  const run = spawnSync(
    process.execPath,
    ['bin/paysync.js', 'audit', '--truth', `${simUrl}/__sim/ground-truth`],
    { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const output = `${run.stdout}${run.stderr}`.trim();
  return { clean: run.status === 0, line: output.split('\n').at(-1) ?? '', output };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const loadBefore = loadavg()
  .map((value) => value.toFixed(2))
  .join(' / ');
const dir = mkdtempSync(join(tmpdir(), 'paysync-pipeline-'));
const prefix = `paysync-pipeline-${randomBytes(4).toString('hex')}`;
const apiKey = generateApiKey();
const merchantId = generateMerchantId();
const webhookSecret = generateWebhookSecret();
const given = givenDatabase();
const databaseUrl =
  given ?? process.env.PAYSYNC_BENCH_DATABASE_URL ?? `sqlite:${join(dir, 'paysync.db')}`;

/** The `--database` to run on: a PostgreSQL URL as is, or a copy of the SQLite file in `dir`. */
function givenDatabase(): string | undefined {
  const given = values.database;
  if (given === undefined || /^postgres(ql)?:\/\//.test(given)) return given;
  const file = given.replace(/^sqlite:/, '');
  const copy = join(dir, 'paysync.db');
  console.log(`copying ${file} (${(statSync(file).size / 1e6).toFixed(0)} MB) to ${copy}`);
  copyFileSync(file, copy);
  if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
  return `sqlite:${copy}`;
}
// One seed, so every run sends the same ids, except into a PostgreSQL schema that keeps what
// earlier runs added: the same ids again would find their items settled already, and no run
// would ever see its 2,000 settle.
const simSeed = given?.startsWith('postgres') === true ? String(randomInt(1, 2 ** 31)) : '8';
const simPort = await freePort();
const daemonPort = await freePort();
const env = {
  ...process.env,
  PAYSYNC_DATABASE_URL: databaseUrl,
  PAYSYNC_REDIS_URL: redisUrl,
  PAYSYNC_QUEUE_PREFIX: prefix,
  PAYSYNC_WEBHOOK_SECRET: webhookSecret,
  PAYSYNC_API_KEY: apiKey,
  PAYSYNC_MERCHANT_ID: merchantId,
  PAYSYNC_UPSTREAM_URL: `http://127.0.0.1:${simPort}`,
  PAYSYNC_PORT: String(daemonPort),
  PAYSYNC_UPSTREAM_RPS: process.env.PAYSYNC_UPSTREAM_RPS ?? '10000',
  PAYSYNC_LOG_LEVEL: process.env.PAYSYNC_LOG_LEVEL ?? 'info',
};
const migrated = spawnSync(process.execPath, ['bin/paysync.js', 'migrate'], {
  env,
  encoding: 'utf8',
});
if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);

const sim = spawn(
  process.execPath,
  [...profileArgs, 'bin/paysync.js', 'sim', '--port', String(simPort), '--seed', simSeed],
  { env: { ...env, PAYSYNC_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] },
);
/**
 * A paysync role as a child process; each gets a metrics port of its own (the ops port of
 * `start` and `serve`, the metrics port of `work` and `schedule`).
 */
async function role(args: string[]): Promise<{ child: ChildProcess; metricsUrl: string }> {
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [...profileArgs, 'bin/paysync.js', ...args], {
    env: {
      ...env,
      PAYSYNC_METRICS_PORT: String(metricsPort),
      PAYSYNC_OPS_PORT: String(metricsPort),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { child, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}
// `start` and `serve` answer /metrics on their ops port; work and schedule on their metrics port.
const front = await role([workerCount === undefined ? 'start' : 'serve']);
const daemon = front.child;
const others =
  workerCount === undefined
    ? []
    : [
        await role(['schedule']),
        ...(await Promise.all(Array.from({ length: workerCount }, () => role(['work'])))),
      ];
const processes = [daemon, ...others.map((o) => o.child)];
for (const other of others) other.child.stdout?.resume();
const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
const database = createDatabase(databaseUrl);
try {
  await waitFor(sim, /listening on (http:\/\/\S+)/, 'paysync sim');
  const daemonUrl = (await waitFor(daemon, /"url":"(http:\/\/[^"]+)"/, 'paysync start'))[1]!;
  const simUrl = `http://127.0.0.1:${simPort}`;
  const client = createUpstreamClient({
    baseUrl: simUrl,
    apiKey,
    merchantId,
    rps: 100,
    now: () => new Date(),
  });
  await client.createWebhook({ url: `${daemonUrl}/webhooks` });
  console.log(`load average ${loadBefore}`);
  console.log(
    `node ${process.version}; ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'})`,
  );
  if (!soak) {
    console.log(
      `workload: ${perKind} transfers + ${perKind} payment intents, settled, 3 webhooks each`,
    );
  }

  type Progress = {
    settled: number;
    inbox: number;
    open: number;
    swept: number;
    lastClosed: string | null;
  };
  // What the database held before the run (nothing, unless --database): progress counts only
  // what the run adds, and each count reads an index, not a table of a year of books.
  // Items count by when paysync last synced them (its own clock, through an index): the service's
  // updated_at of seeded items lies hours back, behind what an earlier run on the same schema
  // left, so it cannot tell this run's items from those.
  const baseline = (
    await sql<{ inbox_id: number | null }>`select
        (select max(id) from webhook_inbox) as inbox_id`.execute(database.db)
  ).rows[0]!;
  const inboxAfter = Number(baseline.inbox_id ?? 0);
  const syncedAfter = new Date().toISOString();
  // Polled four times a second while the daemon works, so every term reads only this run's
  // rows: on a year of books the sum of every sweep ever run took 74 ms a poll on SQLite, a
  // third of a core taken from the daemon on the year's runs only (issue 22's figures before
  // 2026-11-27T20:40Z were measured with it).
  const progress = async (): Promise<Progress> => {
    const result = await sql<{
      settled: number;
      inbox: number;
      open: number;
      swept: number;
      last_closed: string | null;
    }>`select
        (select count(*) from transfers where last_synced_at >= ${syncedAfter} and status = 'successful')
          + (select count(*) from payment_intents where last_synced_at >= ${syncedAfter} and status = 'successful') as settled,
        (select count(*) from webhook_inbox where id > ${inboxAfter}) as inbox,
        (select count(*) from webhook_inbox where status in ('received', 'processing')) as open,
        (select coalesce(sum(items_seen), 0) from scheduled_runs
          where task = 'sweep' and started_at >= ${syncedAfter}) as swept,
        (select max(processed_at) from webhook_inbox where status = 'processed') as last_closed`.execute(
      database.db,
    );
    const row = result.rows[0]!;
    return {
      settled: Number(row.settled),
      inbox: Number(row.inbox),
      open: Number(row.open),
      swept: Number(row.swept),
      lastClosed: row.last_closed,
    };
  };

  /** The database's size on disk: the SQLite file with its WAL, or PostgreSQL's relations in the schema. */
  const databaseBytes = async (): Promise<number> => {
    if (databaseUrl.startsWith('postgres')) {
      const result = await sql<{
        bytes: string | number | null;
      }>`select sum(pg_total_relation_size(c.oid)) as bytes
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind = 'r'`.execute(database.db);
      return Number(result.rows[0]?.bytes ?? 0);
    }
    const file = databaseUrl.replace(/^sqlite:/, '');
    return ['', '-wal'].reduce((sum, suffix) => {
      try {
        return sum + statSync(`${file}${suffix}`).size;
      } catch {
        return sum;
      }
    }, 0);
  };

  if (soak) {
    await runSoak(
      {
        ...soak,
        write: !values['no-write'],
        label: values.label,
        database: databaseUrl.startsWith('postgres') ? 'PostgreSQL' : 'SQLite',
      },
      {
        simUrl,
        daemonPid: daemon.pid!,
        daemonCpuSeconds: () => cpuSeconds(daemon.pid!),
        simPid: sim.pid!,
        simCpuSeconds: () => cpuSeconds(sim.pid!),
        metricsUrl: front.metricsUrl,
        redis,
        progress,
        databaseBytes,
      },
    );
  } else {
    const daemonCpu = () => processes.reduce((sum, child) => sum + cpuSeconds(child.pid!), 0);
    if (values.audit) {
      // The simulator starts funded; a first snapshot books that as opening balances, so the
      // audit's final balances compare like with like.
      await takeBalanceSnapshot({
        db: database.db,
        upstream: client,
        logger: createLogger({ level: 'silent' }),
        environment: 'sandbox',
        now: () => new Date(),
      });
    }
    const before = {
      daemon: daemonCpu(),
      sim: cpuSeconds(sim.pid!),
      redis: await redisCpuSeconds(redis),
    };
    const started = Date.now();
    for (const kind of ['transfer', 'payment_intent']) {
      const response = await fetch(`${simUrl}/__sim/seed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind, count: perKind, settle: true, failureRate: 0 }),
      });
      if (!response.ok)
        throw new Error(`seed ${kind}: ${response.status} ${await response.text()}`);
    }

    let last: Progress = await progress();
    let lastPrint = 0;
    for (;;) {
      if (Date.now() - started > timeoutMs) {
        throw new Error(`no convergence within ${timeoutMs / 1000} s: ${JSON.stringify(last)}`);
      }
      await sleep(250);
      last = await progress();
      if (Date.now() - lastPrint > 5000) {
        lastPrint = Date.now();
        console.log(
          `  ${((Date.now() - started) / 1000).toFixed(0)} s: settled ${last.settled}/${expectedItems}, inbox ${last.inbox} (${last.open} open)`,
        );
      }
      if (last.settled >= expectedItems && last.open === 0 && last.inbox >= expectedItems * 3) {
        // Every webhook the simulator still owes must have arrived and closed too.
        const flushed = await fetch(`${simUrl}/__sim/webhooks/flush`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ timeoutMs: 1000 }),
        });
        const { idle } = (await flushed.json()) as { idle: boolean };
        last = await progress();
        if (idle && last.open === 0) break;
      }
    }
    const after = {
      daemon: daemonCpu(),
      sim: cpuSeconds(sim.pid!),
      redis: await redisCpuSeconds(redis),
    };
    const endedAt = last.lastClosed ? Date.parse(last.lastClosed) : Date.now();
    const seconds = (endedAt - started) / 1000;
    const metrics = (
      await Promise.all(
        [front.metricsUrl, ...others.map((o) => o.metricsUrl)].map(async (url) =>
          (await fetch(url)).text(),
        ),
      )
    ).join('\n');
    const upstreamCalls = [...metrics.matchAll(/^paysync_upstream_requests_total\{[^}]*\} (\d+)/gm)]
      .map((match) => Number(match[1]))
      .reduce((sum, n) => sum + n, 0);
    // Which operations the calls went to: sync fetches, receipts, credential checks…
    const byOperation = new Map<string, number>();
    for (const match of metrics.matchAll(
      /^paysync_upstream_requests_total\{[^}]*operation="([^"]+)"[^}]*\} (\d+)/gm,
    )) {
      byOperation.set(match[1]!, (byOperation.get(match[1]!) ?? 0) + Number(match[2]));
    }
    const byOutcome = new Map<string, number>();
    for (const match of metrics.matchAll(
      /^paysync_upstream_requests_total\{[^}]*outcome="([^"]+)"[^}]*\} (\d+)/gm,
    )) {
      byOutcome.set(match[1]!, (byOutcome.get(match[1]!) ?? 0) + Number(match[2]));
    }
    console.log(
      `upstream calls by operation: ${[...byOperation].map(([op, n]) => `${op} ${n}`).join(', ')}; by outcome: ${[...byOutcome].map(([outcome, n]) => `${outcome} ${n}`).join(', ')}`,
    );
    const skipped = [
      ...metrics.matchAll(/^paysync_sync_attempts_total\{[^}]*outcome="skipped"[^}]*\} (\d+)/gm),
    ]
      .map((match) => Number(match[1]))
      .reduce((sum, n) => sum + n, 0);
    // BullMQ jobs run per settled item, all queues (each attempt counts).
    const jobsByQueue = new Map<string, number>();
    for (const match of metrics.matchAll(
      /^paysync_job_duration_seconds_count\{[^}]*queue="([^"]+)"[^}]*\} (\d+)/gm,
    )) {
      jobsByQueue.set(match[1]!, (jobsByQueue.get(match[1]!) ?? 0) + Number(match[2]));
    }
    const jobs = [...jobsByQueue.values()].reduce((sum, n) => sum + n, 0);
    const figures = {
      settled: last.settled,
      jobsPerItem: jobs / last.settled,
      events: last.inbox,
      seconds,
      itemsPerSecond: last.settled / seconds,
      upstreamCalls,
      // The target is the sync path's: receipts (one fetch per settled item since the follow-ups
      // issue, fetched on their own schedule) are reported apart.
      receiptCalls: byOperation.get('getReceiptHtml') ?? 0,
      callsPerItem: (upstreamCalls - (byOperation.get('getReceiptHtml') ?? 0)) / last.settled,
      skipped,
      cpu: {
        daemon: after.daemon - before.daemon,
        sim: after.sim - before.sim,
        redis: after.redis - before.redis,
      },
      peakRssMb: {
        daemon: Math.max(...processes.map((child) => peakRssMb(child.pid!))),
        sim: peakRssMb(sim.pid!),
      },
      audit: values.audit ? audit(simUrl) : undefined,
    };
    const ms = (cpu: number) => ((cpu * 1000) / last.settled).toFixed(2);
    const lines = [
      `settled ${figures.settled} items (${figures.events} webhooks) in ${seconds.toFixed(1)} s: ${figures.itemsPerSecond.toFixed(0)} items/s`,
      `upstream calls ${upstreamCalls}, of which receipts ${figures.receiptCalls}: ${figures.callsPerItem.toFixed(3)} sync calls per settled item (target ≤ 1.05); fetches skipped ${skipped}`,
      `BullMQ jobs ${jobs}: ${figures.jobsPerItem.toFixed(2)} per settled item (${[...jobsByQueue].map(([queue, n]) => `${queue} ${n}`).join(', ')})`,
      `CPU s: daemon ${figures.cpu.daemon.toFixed(1)} (${ms(figures.cpu.daemon)} ms/item) · simulator ${figures.cpu.sim.toFixed(1)} (${ms(figures.cpu.sim)} ms/item) · Redis ${figures.cpu.redis.toFixed(1)} (${ms(figures.cpu.redis)} ms/item)`,
      `peak RSS: daemon ${figures.peakRssMb.daemon.toFixed(0)} MB${others.length > 0 ? ' (largest of its processes)' : ''} · simulator ${figures.peakRssMb.sim.toFixed(0)} MB`,
      ...(figures.audit ? [`audit against the simulator's truth: ${figures.audit.line}`] : []),
    ];
    console.log(`\n${lines.join('\n')}`);

    if (!values['no-write']) {
      const database = `${databaseUrl.startsWith('postgres') ? 'PostgreSQL' : 'SQLite'}${
        workerCount === undefined ? '' : `, serve + schedule + ${workerCount} work`
      }${figures.audit ? `, audit ${figures.audit.clean ? 'clean' : 'NOT clean'}` : ''}`;
      const onBooks =
        values.database === undefined ? '' : `on ${values.database.replace(/\?.*$/, '')}`;
      const label =
        values.label || onBooks ? ` (${[values.label, onBooks].filter(Boolean).join(', ')})` : '';
      const row = `| ${new Date().toISOString().slice(0, 16)}Z${label} | ${database} | ${perKind} + ${perKind} | ${figures.callsPerItem.toFixed(3)} | ${figures.itemsPerSecond.toFixed(0)} | ${figures.cpu.daemon.toFixed(1)} s (${ms(figures.cpu.daemon)} ms) | ${figures.cpu.sim.toFixed(1)} s (${ms(figures.cpu.sim)} ms) | ${figures.cpu.redis.toFixed(1)} s (${ms(figures.cpu.redis)} ms) | ${figures.peakRssMb.daemon.toFixed(0)} MB | ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, load ${loadBefore} | ${figures.jobsPerItem.toFixed(2)} |`;
      const file = appendPerformanceRow({
        marker: '<!-- bench:pipeline:rows (appended by `npm run bench:pipeline`) -->',
        header: [
          '## Webhook pipeline (`npm run bench:pipeline`)',
          '',
          "Upstream calls per settled item, settled items per second (seed call to the last inbox row closed), CPU seconds per process (per settled item in brackets) and the daemon's peak RSS, on the 3-webhooks-per-item workload. Newest last.",
          '',
          '| Run | Database | Items (transfers + intents) | Upstream calls / item | Items/s | Daemon CPU | Simulator CPU | Redis CPU | Daemon peak RSS | Machine | BullMQ jobs / item |',
          '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |',
        ],
        row,
      });
      console.log(`wrote ${file}`);
    }
    if (figures.audit && !figures.audit.clean) {
      console.error(figures.audit.output);
      process.exitCode = 1;
    }
  }
} finally {
  await Promise.all([...processes.map(stop), stop(sim)]);
  await database.close().catch(() => undefined);
  const keys = await redis.keys(`${prefix}:*`).catch(() => [] as string[]);
  // In chunks: a soak leaves hundreds of thousands of keys, too many for one call's arguments.
  for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
}
