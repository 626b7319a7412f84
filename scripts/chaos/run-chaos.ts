/**
 * The chaos run (issue 14): mixed traffic while webhooks are duplicated, reordered and dropped,
 * the service answers 500s, 429 bursts and slow responses, workers are killed with SIGKILL every
 * few seconds, the receiver once, Redis is flushed and restarted, PostgreSQL connections are
 * terminated and the scheduler is killed; then, after the faults stop and the system quiesces,
 * `paysync audit --truth` must find the books equal to the simulator's, and every failed
 * transfer must have been alerted exactly once. A relay consumer (test/support/chaos/relay-consumer.ts)
 * answers 500 to a fifth of the deliveries and is down for 35 s; afterwards it must hold exactly
 * one event per fact the books imply, in order per item (test/support/chaos/relay-check.ts).
 * Before that check the harness closes the books' day (end-of-day snapshot and verdict, on a
 * clock just past midnight), so every run also proves one `day.verdict` per judged day.
 *
 * Usage: npm run test:chaos -- [--config sqlite|postgres|both] [--items N | --short] [--no-write]
 * Prints a table of what was injected and what was found, writes it to docs/reliability.md,
 * and exits 0 when every configuration is clean, 1 otherwise.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { runBalanceTask, takeBalanceSnapshot } from '../../src/balances/index.ts';
import { dayOf, dayWindow } from '../../src/books-calendar/index.ts';
import { createDatabase, type DatabaseHandle } from '../../src/db/index.ts';
import { reasonOf } from '../../src/error-reason.ts';
import { freePort } from '../../src/lifecycle/index.ts';
import { judgeClosedDays } from '../../src/reports/index.ts';
import { createLogger } from '../../src/logger.ts';
import { generateWebhookSecret, startSimulator } from '../../src/sim/index.ts';
import { createUpstreamClient } from '../../src/upstream/index.ts';
import { generateMixedTraffic } from '../../test/support/mixed-traffic.ts';
import { checkRelayConsumer, waitForRelayQuiet } from '../../test/support/chaos/relay-check.ts';
import { startChaosRelayConsumer } from '../../test/support/chaos/relay-consumer.ts';

const HELP = `Usage: npm run test:chaos -- [options]

  --config <c>   sqlite (one paysync start), postgres (serve + schedule + 3 work), or both (default)
  --items <n>    items of traffic per configuration (default 10000)
  --short        1000 items: the form CI runs
  --retention <d>  prune under fire: every PAYSYNC_RETENTION_*_AFTER set to <d> (e.g. 1m), the
                 retention task every 15 s (docs/retention.md); default: the daemon's defaults
  --no-write     leave docs/reliability.md alone
  -h, --help     this text

Needs redis-server on the PATH (a private one is started; the shared Redis is never touched) and,
for postgres, PostgreSQL at PAYSYNC_CHAOS_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test).`;

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: 'both' },
    items: { type: 'string' },
    short: { type: 'boolean', default: false },
    retention: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const configs =
  values.config === 'both' ? ['sqlite', 'postgres'] : [values.config as 'sqlite' | 'postgres'];
if (!configs.every((c) => c === 'sqlite' || c === 'postgres')) {
  console.error(`--config must be sqlite, postgres or both, not ${values.config}`);
  process.exit(2);
}
if (values.retention !== undefined && !/^\d+\s*(s|m|h|d)$/.test(values.retention)) {
  console.error(`--retention must be a duration such as 1m, 30s or 1h, not ${values.retention}`);
  process.exit(2);
}
const items = Number(values.items ?? (values.short ? 1000 : 10_000));
if (!Number.isInteger(items) || items < 10) {
  console.error('--items must be a whole number of at least 10');
  process.exit(2);
}
const form = values.short ? 'short' : items >= 10_000 ? 'long' : `${items} items`;
const postgresUrl =
  process.env.PAYSYNC_CHAOS_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The operations paysync itself calls while it keeps the books. */
const DAEMON_OPERATIONS = [
  'listRefunds',
  'getRefund',
  'getPaymentRefundStatus',
  'getBalance',
  'listPaymentLinks',
  'getPaymentLink',
  'getPaymentIntent',
  'listPaymentIntents',
  'listTransfers',
  'getReceiptHtml',
];

/**
 * The relay's retries in the chaos run: enough, and close enough together, that no delivery gives
 * up while the consumer is down (35 s), workers are killed or a fifth of the answers are 500s:
 * 16 attempts over about 7 minutes.
 */
const CHAOS_RELAY_RETRY_SCHEDULE = '0s,1s,2s,5s,10s,20s,30s,30s,30s,30s,30s,30s,30s,30s,30s,30s';
/** The share of relay deliveries the consumer answers 500. */
const RELAY_FAIL_RATE = 0.2;
/** The books' time zone of the run: the harness closes today's day in it after the faults. */
const CHAOS_TIMEZONE = 'UTC';

/** The consumer goes down at this tick of the fault phase, for this long (wall time). */
const RELAY_DOWN_AT_TICK = 20;
const RELAY_DOWN_MS = 35_000;
/** Payments the relay must follow step by step (first seen open, then settled). */
const STEPWISE_PAYMENTS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A redis-server of our own on a fixed port, so a restart keeps the URL. */
class PrivateRedis {
  child: ChildProcess | undefined;
  constructor(readonly port: number) {}
  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }
  async start() {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i += 1) {
      const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      probe.on('error', () => undefined);
      const up = await probe
        .connect()
        .then(() => probe.ping())
        .then(() => true)
        .catch(() => false);
      probe.disconnect();
      if (up) return;
      await sleep(100);
    }
    throw new Error(`redis-server did not answer on port ${this.port}`);
  }
  async stop() {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

interface Role {
  readonly name: string;
  readonly args: string[];
  child: ChildProcess;
  readonly metricsPort: number;
  /** Set while the script itself stops the process, so its exit is not counted as a crash. */
  stopping?: boolean;
  /** The restart under way: restarts of one role run one at a time. */
  restarting?: Promise<void>;
}

interface Outcome {
  readonly config: string;
  readonly injected: Record<string, number>;
  readonly found: Record<string, string | number>;
  readonly audit: string;
  readonly clean: boolean;
}

async function runConfiguration(config: 'sqlite' | 'postgres'): Promise<Outcome> {
  const injected: Record<string, number> = {
    'webhooks duplicated (20%)': 0,
    'webhooks reordered (20%)': 0,
    'webhooks dropped (5%)': 0,
    "upstream 500s: rate set on paysync's reads (%)": 10,
    '429 bursts of 10 s': 0,
    '2 s latency spikes': 0,
    'worker kill -9 (every 5 s)': 0,
    'receiver kill -9': 0,
    'Redis FLUSHALL': 0,
    'Redis restart': 0,
    'PostgreSQL connections terminated': 0,
    'scheduler kill -9 during a sweep': 0,
    'funding top-up booked with paysync adjust': 0,
    'OTP payments': 0,
    'relay consumer: deliveries answered 500 (20%)': 0,
    'relay consumer down (s)': 0,
    'relay: OTP payments seen open, then paid (several events each)': 0,
  };
  const dir = mkdtempSync(join(tmpdir(), 'paysync-chaos-'));
  const redis = new PrivateRedis(await freePort());
  await redis.start();
  const appName = `paysync-chaos-${randomBytes(4).toString('hex')}`;
  let schema: string | undefined;
  let databaseUrl = `sqlite:${join(dir, 'paysync.db')}`;
  if (config === 'postgres') {
    schema = `chaos_${randomBytes(5).toString('hex')}`;
    const admin = createDatabase(postgresUrl, { poolSize: 1 });
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    await admin.close();
    const url = new URL(postgresUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    url.searchParams.set('application_name', appName);
    databaseUrl = url.toString();
  }
  const webhookSecret = generateWebhookSecret();
  // Every attempt listed (the simulator lists only the newest 10,000 by default): the table
  // counts the webhooks sent, duplicated and dropped from that list.
  const sim = await startSimulator({ webhookSecret, seed: 14, webhookAttemptsKept: items * 10 });
  const daemonPort = await freePort();
  const env = {
    ...process.env,
    PAYSYNC_DATABASE_URL: databaseUrl,
    PAYSYNC_REDIS_URL: redis.url,
    PAYSYNC_QUEUE_PREFIX: `chaos-${config}`,
    PAYSYNC_WEBHOOK_SECRET: webhookSecret,
    PAYSYNC_API_KEY: sim.credentials.apiKey,
    PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
    PAYSYNC_UPSTREAM_URL: sim.url,
    PAYSYNC_PORT: String(daemonPort),
    PAYSYNC_UPSTREAM_RPS: '200',
    PAYSYNC_LOG_LEVEL: 'warn',
    PAYSYNC_SWEEP_CRON: '*/10 * * * * *',
    PAYSYNC_JANITOR_CRON: '*/5 * * * * *',
    PAYSYNC_RECOVERY_CRON: '*/5 * * * * *',
    PAYSYNC_RECOVERY_AFTER_SECONDS: '10',
    PAYSYNC_OUTBOX_REDISPATCH_SECONDS: '20',
    PAYSYNC_BALANCE_CRON: 'off',
    PAYSYNC_VERDICT_CRON: 'off',
    PAYSYNC_BOOKS_TIMEZONE: CHAOS_TIMEZONE,
    PAYSYNC_EXPORT_CRON: 'off',
    PAYSYNC_RELAY_RETRY_SCHEDULE: CHAOS_RELAY_RETRY_SCHEDULE,
    PAYSYNC_RELAY_TIMEOUT: '5s',
    ...(values.retention
      ? {
          PAYSYNC_RETENTION_CRON: '*/15 * * * * *',
          PAYSYNC_RETENTION_INBOX_BODY_AFTER: values.retention,
          PAYSYNC_RETENTION_OUTBOX_AFTER: values.retention,
          PAYSYNC_RETENTION_RUNS_AFTER: values.retention,
          PAYSYNC_RETENTION_ALERT_DELIVERIES_AFTER: values.retention,
          PAYSYNC_RETENTION_RELAY_AFTER: values.retention,
        }
      : {}),
  };
  const cli = (args: string[]) =>
    spawnSync(process.execPath, ['bin/paysync.js', ...args], {
      env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  // The simulator runs in this process: a CLI run while traffic flows must not block its event
  // loop (spawnSync did, for as long as `paysync adjust` took, and the traffic's own requests
  // to the simulator timed out).
  const cliAsync = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['bin/paysync.js', ...args], { env });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  const migrated = cli(['migrate']);
  if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
  // The merchant's consumer, registered with the real CLI before any traffic: it gets every event.
  const consumer = await startChaosRelayConsumer({
    port: await freePort(),
    failRate: RELAY_FAIL_RATE,
  });
  const added = cli([
    'endpoints',
    'add',
    '--url',
    consumer.url,
    '--description',
    'chaos run consumer',
    '--json',
  ]);
  if (added.status !== 0) {
    await consumer.close();
    throw new Error(`paysync endpoints add failed: ${added.stderr}`);
  }
  consumer.setSecret((JSON.parse(added.stdout) as { secret: string }).secret);

  const spawnRole = async (name: string, args: string[]): Promise<Role> => {
    const metricsPort = await freePort();
    // Each role's stderr goes to a file of its own, shown when the run is not clean.
    const log = openSync(join(dir, `${name}.log`), 'a');
    const child = spawn(process.execPath, ['bin/paysync.js', ...args], {
      env: { ...env, PAYSYNC_METRICS_PORT: String(metricsPort) },
      stdio: ['ignore', 'ignore', log],
    });
    closeSync(log);
    return { name, args, child, metricsPort };
  };
  // The script is the process manager: like pm2, it starts again a process that exits on its
  // own (after a second), and it counts and shows each such exit, since a crash that a restart
  // hides is still a defect to look at.
  const exits: string[] = [];
  let running = true;
  const watch = (role: Role) => {
    const child = role.child;
    child.once('exit', (code, signal) => {
      if (role.stopping || !running || role.child !== child) return;
      const lines = readFileSync(join(dir, `${role.name}.log`), 'utf8')
        .trim()
        .split('\n');
      const reason = lines.find((l) => /Error|error:|cannot|refused/.test(l)) ?? lines.at(-1);
      exits.push(`${role.name} exited (${signal ?? code}) on its own: ${reason ?? '(no stderr)'}`);
      console.log(`  ${exits.at(-1)}`);
      setTimeout(() => {
        if (running && role.child === child && !role.stopping) void restart(role);
      }, 1000);
    });
  };
  const roles: Role[] =
    config === 'sqlite'
      ? [await spawnRole('start', ['start'])]
      : [
          await spawnRole('serve', ['serve']),
          await spawnRole('schedule', ['schedule']),
          await spawnRole('work-1', ['work']),
          await spawnRole('work-2', ['work']),
          await spawnRole('work-3', ['work']),
        ];
  async function restart(role: Role, signal: NodeJS.Signals = 'SIGKILL') {
    const previous = role.restarting;
    let done = () => {};
    role.restarting = new Promise<void>((resolve) => (done = resolve));
    await previous;
    try {
      role.stopping = true;
      const exited = new Promise((resolve) => role.child.once('exit', resolve));
      if (role.child.exitCode === null && role.child.signalCode === null) {
        role.child.kill(signal);
        await exited;
      }
      const fresh = await spawnRole(role.name, role.args);
      role.child = fresh.child;
      if (!running) role.child.kill('SIGKILL');
      role.stopping = false;
      watch(role);
    } finally {
      done();
    }
  }
  for (const role of roles) watch(role);
  const receiverUp = async () => {
    for (let i = 0; i < 200; i += 1) {
      const ok = await fetch(`http://127.0.0.1:${daemonPort}/healthz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return;
      await sleep(100);
    }
    throw new Error('the receiver did not come up within 20 s');
  };
  // The script's own connections carry another name, so the terminated count is paysync's.
  const judgeUrl = databaseUrl.replace(
    `application_name=${appName}`,
    `application_name=${appName}-judge`,
  );
  const database: DatabaseHandle = createDatabase(judgeUrl);
  const startedAt = Date.now();
  try {
    await receiverUp();
    const client = createUpstreamClient({
      now: () => new Date(),
      baseUrl: sim.url,
      apiKey: sim.credentials.apiKey,
      merchantId: sim.credentials.merchantId,
      rps: 100,
    });
    await client.createWebhook({ url: `http://127.0.0.1:${daemonPort}/webhooks` });
    // The simulator starts funded: book that as opening balances, so the audit's final
    // balances compare like with like.
    await takeBalanceSnapshot({
      db: database.db,
      upstream: client,
      logger: createLogger({ level: 'silent' }),
      environment: 'sandbox',
      now: () => new Date(),
    });
    sim.control.setFaults({
      webhookDuplicateRate: 0.2,
      webhookReorderRate: 0.2,
      webhookDropRate: 0.05,
      errorRate: 0.1,
      // Faults hit what paysync reads, not the traffic generator's own refund requests.
      operations: [...DAEMON_OPERATIONS],
    });

    // The fault schedule, on the traffic's own clock (seconds since it started).
    const workers = roles.filter((r) => r.name === 'start' || r.name.startsWith('work'));
    const receiver = roles.find((r) => r.name === 'start' || r.name === 'serve')!;
    const scheduler = roles.find((r) => r.name === 'start' || r.name === 'schedule')!;
    let consumerBack: Promise<void> = Promise.resolve();
    let stepwise: Promise<void> = Promise.resolve();
    // Most items are first seen by paysync already settled (one event each), which proves no
    // order. These payments need the sandbox OTP: they wait for it until paysync holds them
    // open, then are paid, so each gets two events or more whose order the check verifies.
    const stepwisePayments = async () => {
      const ids: string[] = [];
      for (let i = 0; i < STEPWISE_PAYMENTS; i += 1) {
        ids.push(
          sim.control.createPaymentIntent({
            amount: 3100 + i,
            purchaseReference: `chaos-relay-step-${i}`,
            customerReference: 'chaos-relay',
            phoneNumber: `+2217620000${i}0001`,
          }).id,
        );
      }
      const seenOpen = async () => {
        const rows = await sql<{ id: string }>`select id from payment_intents
          where id in (${sql.join(ids)}) and status not in ('successful', 'failed')`.execute(
          database.db,
        );
        return rows.rows.length;
      };
      // The workers' queue runs minutes behind under the faults: a sweep of the last minutes
      // (the operator's `paysync sweep`, one of the paths that emit events) books them open.
      const waitUntil = Date.now() + 180_000;
      let sweeps = 0;
      while ((await seenOpen()) < ids.length && Date.now() < waitUntil) {
        await sleep(2000);
        if ((await seenOpen()) < ids.length && sweeps < 20) {
          sweeps += 1;
          await cliAsync(['sweep', '--kind', 'intents', '--since', '10m']);
        }
      }
      const open = await seenOpen();
      console.log(`  relay: ${open} of ${ids.length} OTP payments booked open (${sweeps} sweeps)`);
      // Their OTP is asked for after a moment of the service's time; then they are paid.
      sim.control.advance(1_500);
      for (const id of ids) {
        try {
          sim.control.submitOtp(id, '123456');
        } catch {
          // not waiting for an OTP: it settles on its own path
        }
      }
      sim.control.advance(10_000);
      injected['relay: OTP payments seen open, then paid (several events each)'] = open;
    };
    let tick = 0;
    let trafficErrors = 0;
    let faulting = true;
    const faults = (async () => {
      while (faulting) {
        await sleep(1000);
        tick += 1;
        if (tick % 5 === 0) {
          await restart(workers[Math.floor(Math.random() * workers.length)]!);
          injected['worker kill -9 (every 5 s)']! += 1;
          if (config === 'sqlite') await receiverUp();
        }
        if (tick === 8 || tick === 38) {
          sim.control.setFaults({ throttleRate: 1 });
          injected['429 bursts of 10 s']! += 1;
        }
        if (tick === 18 || tick === 48) sim.control.setFaults({ throttleRate: 0 });
        if (tick === 24) {
          // A funding top-up at the service, booked by hand as the merchant would.
          sim.control.fund({ accountType: 'transfer', currency: 'XOF', amount: 5_000_000 });
          const booked = await cliAsync([
            'adjust',
            '--account',
            'service:transfer',
            '--amount',
            '5000000',
            '--currency',
            'XOF',
            '--reason',
            'chaos run: top-up from the bank',
          ]);
          if (booked.status !== 0) throw new Error(`paysync adjust failed: ${booked.stderr}`);
          injected['funding top-up booked with paysync adjust']! += 1;
        }
        if (tick === 28) {
          // Payments that need the sandbox OTP (payer ending 0001), answered.
          for (let i = 0; i < 5; i += 1) {
            const intent = sim.control.createPaymentIntent({
              amount: 2500 + i,
              purchaseReference: `chaos-otp-${i}`,
              customerReference: 'chaos-otp',
              phoneNumber: `+2217610000${i}0001`,
            });
            sim.control.advance(1_500);
            try {
              sim.control.submitOtp(intent.id, '123456');
              injected['OTP payments']! += 1;
            } catch {
              // not waiting for an OTP (yet): it settles on its own path
            }
          }
        }
        if (tick === RELAY_DOWN_AT_TICK) {
          // Down for a stretch of wall time: the fault loop's ticks stretch while it waits.
          await consumer.down();
          consumerBack = sleep(RELAY_DOWN_MS).then(() => consumer.up());
        }
        if (tick === 10) stepwise = stepwisePayments();
        if (tick === 22) {
          sim.control.setFaults({ latencyMs: 2000 });
          injected['2 s latency spikes']! += 1;
        }
        if (tick === 26) sim.control.setFaults({ latencyMs: 0 });
        if (tick === 12) {
          await restart(receiver);
          injected['receiver kill -9']! += 1;
          await receiverUp();
        }
        if (tick === 16) {
          const r = new Redis(redis.url);
          r.on('error', () => undefined);
          await r.flushall();
          r.disconnect();
          injected['Redis FLUSHALL']! += 1;
        }
        if (tick === 30) {
          await redis.stop();
          await sleep(2000);
          await redis.start();
          injected['Redis restart']! += 1;
        }
        if (tick === 20 && config === 'postgres') {
          const admin = createDatabase(postgresUrl, { poolSize: 1 });
          const killed = await sql<{ n: number }>`select count(pg_terminate_backend(pid))::int as n
            from pg_stat_activity where application_name = ${appName}`.execute(admin.db);
          await admin.close();
          injected['PostgreSQL connections terminated']! += killed.rows[0]?.n ?? 0;
        }
        if (tick === 34) {
          // Kill the scheduler while a sweep runs. A `running` record alone does not prove that:
          // a sweep whose process an earlier kill took stays `running` until it goes stale. So
          // wait for a sweep that starts from now on, and kill while its record is open. Under the
          // long form the scheduled queue runs 15-30 s behind its ticks: wait up to a minute.
          const before = await sql<{ id: number | null }>`select max(id) as id from scheduled_runs
            where task = 'sweep'`.execute(database.db);
          const after = Number(before.rows[0]?.id ?? 0);
          let sweeping = false;
          for (let i = 0; i < 600 && !sweeping; i += 1) {
            const running = await sql<{ n: number }>`select count(*) as n from scheduled_runs
              where task = 'sweep' and id > ${after} and outcome = 'running'`.execute(database.db);
            sweeping = Number(running.rows[0]?.n) > 0;
            if (!sweeping) await sleep(100);
          }
          await restart(scheduler);
          if (sweeping) injected['scheduler kill -9 during a sweep']! += 1;
          else
            console.log('  no sweep started within 60 s: the scheduler was killed between sweeps');
          if (config === 'sqlite') await receiverUp();
        }
      }
    })();
    const transfers = Math.round(items * 0.4);
    const paymentIntents = Math.round(items * 0.4);
    const refunds = Math.round(items * 0.1);
    const paymentRefunds = items - transfers - paymentIntents - refunds;
    // Payment links ride along: created through the control surface, synced by sweeps.
    sim.control.seed({ kind: 'payment_link', count: Math.max(1, Math.round(items / 100)) });
    await generateMixedTraffic(sim, client, {
      transfers,
      paymentIntents,
      refunds,
      paymentRefunds,
      batch: 50,
      pauseMs: 100,
      onRequestError: (error) => {
        trafficErrors += 1;
        console.log(
          `  a refund request of the traffic failed (the truth decides): ${reasonOf(error)}`,
        );
      },
    });
    // Keep the faults up for at least a minute of traffic, so each one fires once.
    while (tick < 60) await sleep(500);
    faulting = false;
    await faults;
    await Promise.all([consumerBack, stepwise]);
    const truth = sim.control.groundTruth();
    sim.control.setFaults({
      webhookDuplicateRate: 0,
      webhookReorderRate: 0,
      webhookDropRate: 0,
      errorRate: 0,
      throttleRate: 0,
      latencyMs: 0,
    });
    const attempts = sim.control.webhookAttempts();
    injected['webhooks sent (first attempts)'] = attempts.filter(
      (a) => a.attempt === 1 && !a.duplicate,
    ).length;
    injected['webhooks duplicated (20%)'] = attempts.filter((a) => a.duplicate).length;
    injected['webhooks dropped (5%)'] = attempts.filter((a) => a.outcome === 'dropped').length;
    // The simulator does not record which deliveries it held back; the rate is what was set.
    delete injected['webhooks reordered (20%)'];
    injected['webhooks reordered: rate set (%)'] = 20;

    // Quiesce: every process up, then audit until the books are clean and every follow-up is
    // consumed (one whose job Redis lost is handed out again after 20 s here), or time is up.
    const deadline = Date.now() + (values.short ? 9 : 20) * 60_000;
    const failedTransfers = truth.items.filter(
      (i) => i.kind === 'transfer' && i.status === 'failed',
    );
    let audit = { status: 1 as number | null, stdout: '', stderr: '' };
    let notOnce: typeof failedTransfers = [];
    let unconsumed = 0;
    let alertCount = new Map<string, number>();
    for (;;) {
      for (const role of roles) {
        if (role.child.exitCode !== null || role.child.signalCode !== null) await restart(role);
      }
      // The audit reads the truth from a file: the simulator it would otherwise ask is this
      // process, and the run must not depend on serving it while waiting for the audit.
      const truthFile = join(dir, 'ground-truth.json');
      writeFileSync(truthFile, JSON.stringify(sim.control.groundTruth()));
      audit = await cliAsync(['audit', '--truth', truthFile]);
      const alerted = await sql<{ subject: string; n: number }>`select subject, count(*) as n
        from alerts where kind = 'transfer_failed' group by subject`.execute(database.db);
      alertCount = new Map(alerted.rows.map((r) => [r.subject, Number(r.n)]));
      notOnce = failedTransfers.filter((t) => alertCount.get(t.id) !== 1);
      const waiting = await sql<{ n: number }>`select count(*) as n from outbox
        where consumed_at is null`.execute(database.db);
      unconsumed = Number(waiting.rows[0]?.n);
      console.log(
        `  ${new Date().toISOString()} audit exit ${audit.status}; follow-ups not consumed ${unconsumed}; failed transfers not alerted once ${notOnce.length}`,
      );
      if (
        (audit.status === 0 && unconsumed === 0 && notOnce.length === 0) ||
        Date.now() > deadline
      ) {
        break;
      }
      await sleep(15_000);
    }
    // Close the books' days, as the scheduler would after midnight: the balance task's
    // end-of-day snapshots and the verdict task, with their clock just past tonight's midnight.
    // A run of minutes closes no day by itself, and the relay owes one day.verdict per judged day.
    const afterMidnight = () =>
      new Date(Date.parse(dayWindow(dayOf(new Date(), CHAOS_TIMEZONE), CHAOS_TIMEZONE).to) + 1000);
    const closing = await runBalanceTask(
      {
        db: database.db,
        upstream: client,
        logger: createLogger({ level: 'silent' }),
        environment: 'sandbox',
        now: afterMidnight,
      },
      { timeZone: CHAOS_TIMEZONE },
    );
    const judged = await judgeClosedDays({
      db: database.db,
      environment: 'sandbox',
      timeZone: CHAOS_TIMEZONE,
      now: afterMidnight,
    });
    console.log(
      `  days closed: ${closing.endOfDay.length} end-of-day snapshots; verdicts ${judged.map((j) => `${j.day} ${j.verdict}`).join(', ') || 'none'}`,
    );
    injected['days closed and judged (one day.verdict each)'] = judged.length;
    // The verdict task ran on a clock ahead of the real one, so its deliveries are due at that
    // time: make them due now, as they would be after a real midnight.
    const realNow = new Date().toISOString();
    await sql`update relay_deliveries set next_attempt_at = ${realNow}
      where state = 'pending' and next_attempt_at > ${realNow}
        and event_id in (select id from relay_events where type = 'day.verdict')`.execute(
      database.db,
    );

    // The relay: everything delivered (retries included), then the consumer against the books.
    // A fact read from the books has its event and deliveries committed with it: a second wait
    // covers one that changed between the first wait and the reading.
    const relayDeadline = Date.now() + 5 * 60_000;
    let relayProblems: string[] = [];
    let relayFound: Record<string, number> = {};
    for (let round = 0; round < 2; round += 1) {
      const quiet = await waitForRelayQuiet(database.db, relayDeadline);
      if (quiet !== undefined) {
        relayProblems = [quiet];
        const pending = await cliAsync(['endpoints', 'pending', '--limit', '5']);
        console.log(`  ${quiet}\n${pending.stdout.trim()}`);
        break;
      }
      const checked = await checkRelayConsumer(database.db, consumer);
      relayProblems = checked.problems;
      relayFound = checked.found;
      if (round === 1 || relayProblems.length === 0) {
        console.log(`  relay events received by type: ${JSON.stringify(checked.byType)}`);
        break;
      }
    }
    for (const problem of relayProblems) console.log(`  relay check: ${problem}`);
    const consumed = consumer.figures();
    injected['relay consumer: deliveries answered 500 (20%)'] = consumed.answered500;
    injected['relay consumer down (s)'] = Math.round(consumed.downMs / 1000);

    const byCount = new Map<number, string[]>();
    for (const t of notOnce) {
      const n = alertCount.get(t.id) ?? 0;
      byCount.set(n, [...(byCount.get(n) ?? []), t.id]);
    }
    for (const [n, ids] of byCount) {
      console.log(
        `  failed transfers alerted ${n} times: ${ids.length} (e.g. ${ids.slice(0, 3).join(', ')})`,
      );
    }
    const counts = await sql<{
      journals: number;
      items: number;
      refunds_by_sweep: number;
      payment_refunds_by_sweep: number;
    }>`select
        (select count(*) from journals) as journals,
        (select count(*) from transfers) + (select count(*) from payment_intents)
          + (select count(*) from refunds) as items,
        (select count(*) from status_history where resource_kind = 'refund'
          and from_status is null and via = 'sweep') as refunds_by_sweep,
        (select count(*) from status_history where resource_kind = 'payment_refund'
          and from_status is null and via = 'sweep') as payment_refunds_by_sweep`.execute(
      database.db,
    );
    // Every fault of the mix must have fired at least once, or the verdict proves less than it says.
    const notFired = Object.entries(injected)
      .filter(([fault, n]) => n === 0 && !(config === 'sqlite' && fault.startsWith('PostgreSQL')))
      .map(([fault]) => fault);
    for (const fault of notFired) console.log(`  fault that did not fire: ${fault}`);
    const found = {
      'faults that did not fire': notFired.length,
      'processes that exited on their own (restarted)': exits.length,
      'refund requests of the traffic that failed (the truth decides)': trafficErrors,
      'items in the simulator (with payment links)': truth.items.length,
      'items in the ledger (transfers, intents, refunds)': Number(counts.rows[0]?.items),
      journals: Number(counts.rows[0]?.journals),
      'transfer refunds first seen by a sweep (refund list)': Number(
        counts.rows[0]?.refunds_by_sweep,
      ),
      'payment refunds first seen by a sweep (id probe)': Number(
        counts.rows[0]?.payment_refunds_by_sweep,
      ),
      'failed transfers': failedTransfers.length,
      'failed transfers not alerted exactly once': notOnce.length,
      'follow-ups (alerts, receipts) not consumed': unconsumed,
      ...relayFound,
      'relay check problems': relayProblems.length,
      'audit exit code': audit.status ?? -1,
      'minutes, traffic to clean': ((Date.now() - startedAt) / 60_000).toFixed(1),
    };
    const auditText = `${audit.stdout}${audit.stderr}`.trim();
    const clean =
      audit.status === 0 &&
      notOnce.length === 0 &&
      unconsumed === 0 &&
      notFired.length === 0 &&
      relayProblems.length === 0;
    if (!clean) {
      for (const role of roles) {
        const tail = readFileSync(join(dir, `${role.name}.log`), 'utf8')
          .trim()
          .split('\n');
        console.log(`  last lines of ${role.name}'s stderr:\n${tail.slice(-10).join('\n')}`);
      }
    }
    return {
      config:
        config === 'sqlite' ? 'SQLite, paysync start' : 'PostgreSQL, serve + schedule + 3 work',
      injected,
      found,
      audit: auditText,
      clean,
    };
  } finally {
    running = false;
    for (const role of roles) role.child.kill('SIGKILL');
    await sim.stop();
    await consumer.close();
    await database.close().catch(() => undefined);
    await redis.stop();
    if (schema) {
      const admin = createDatabase(postgresUrl, { poolSize: 1 });
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
    }
    if (process.env.PAYSYNC_CHAOS_KEEP === '1') console.log(`  kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

const outcomes: Outcome[] = [];
for (const config of configs) {
  console.log(`\n=== chaos run (${form}), ${config} ===`);
  const outcome = await runConfiguration(config);
  outcomes.push(outcome);
  console.log(`injected: ${JSON.stringify(outcome.injected, null, 2)}`);
  console.log(`found: ${JSON.stringify(outcome.found, null, 2)}`);
  console.log(outcome.audit.split('\n').slice(-12).join('\n'));
  console.log(outcome.clean ? 'CLEAN' : 'NOT CLEAN');
}

if (!values['no-write']) {
  const file = 'docs/reliability.md';
  let text = readFileSync(file, 'utf8');
  for (const outcome of outcomes) {
    const start = `<!-- chaos:${form}:${outcome.config}:start -->`;
    const end = `<!-- chaos:${form}:${outcome.config}:end -->`;
    const block = [
      start,
      '',
      `### ${outcome.config}, ${form} form: ${outcome.clean ? 'clean' : '**not clean**'}`,
      '',
      `Run ${new Date().toISOString()} · ${
        values.retention
          ? `retention under fire: every PAYSYNC_RETENTION_*_AFTER ${values.retention}, pruned every 15 s`
          : "retention: the daemon's defaults"
      } · load average at the end ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' / ')}`,
      '',
      '| Injected | Count |',
      '| --- | ---: |',
      ...Object.entries(outcome.injected).map(([k, v]) => `| ${k} | ${v} |`),
      '',
      '| Found | Value |',
      '| --- | ---: |',
      ...Object.entries(outcome.found).map(([k, v]) => `| ${k} | ${v} |`),
      '',
      '```',
      ...outcome.audit.split('\n').slice(-15),
      '```',
      '',
      end,
    ].join('\n');
    // Spliced by position: the configuration's name holds `+`, which a RegExp would read as a
    // quantifier, and the PostgreSQL section was silently never replaced.
    const from = text.indexOf(start);
    const to = text.indexOf(end, from);
    text =
      from >= 0 && to >= 0
        ? `${text.slice(0, from)}${block}${text.slice(to + end.length)}`
        : `${text.trimEnd()}\n\n${block}\n`;
  }
  writeFileSync(file, text);
  // Aligned the way the repository's formatter wants it, so format:check stays green.
  spawnSync(process.execPath, ['node_modules/prettier/bin/prettier.cjs', '--write', file], {
    stdio: 'ignore',
  });
}
process.exit(outcomes.every((o) => o.clean) ? 0 : 1);
