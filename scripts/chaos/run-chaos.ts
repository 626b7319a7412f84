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
 * With `--tenants 2` (issue 25) the same processes serve two tenants of a tenants file, a
 * live-like and a sandbox account, each fed by a simulator of its own; the faults are the same,
 * and each tenant's books are judged against its own simulator's truth (scripts/chaos/chaos-tenants.ts).
 *
 * With `--throttle-rps N` (issue 37) the simulators throttle at N requests a second, as the service
 * does, and the daemon's budget is the same N (`PAYSYNC_UPSTREAM_RPS`).
 *
 * Usage: npm run test:chaos -- [--config sqlite|postgres|both] [--items N | --short] [--tenants 1|2] [--throttle-rps N] [--no-write]
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
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
} from '../../src/sim/index.ts';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/index.ts';
import { generateMixedTraffic } from '../../test/support/mixed-traffic.ts';
import { checkRelayConsumer, waitForRelayQuiet } from '../../test/support/chaos/relay-check.ts';
import {
  startChaosRelayConsumer,
  type ChaosRelayConsumer,
} from '../../test/support/chaos/relay-consumer.ts';
import { outcomeTables, printOutcome, type Outcome, type TenantOutcome } from './chaos-report.ts';
import {
  CHAOS_TENANTS,
  secretVariables,
  writeChaosTenantsFile,
  type ChaosTenantPlan,
} from './chaos-tenants.ts';

const HELP = `Usage: npm run test:chaos -- [options]

  --config <c>   sqlite (one paysync start), postgres (serve + schedule + 3 work), or both (default)
  --items <n>    items of traffic per configuration, shared among the tenants (default 10000)
  --short        1000 items: the form CI runs
  --tenants <n>  1 (default): one set of books from PAYSYNC_* variables; 2: the same processes
                 serve a tenants file of two tenants, chaos-live (environment live) and
                 chaos-sandbox, each with a simulator, a SQLite file or PostgreSQL schema and a
                 relay consumer of its own, half the items each; each tenant's books are audited
                 against its own simulator's truth (docs/reliability.md, "Two tenants on one
                 set of processes")
  --retention <d>  prune under fire: every PAYSYNC_RETENTION_*_AFTER set to <d> (e.g. 1m), the
                 retention task every 15 s (docs/retention.md); default: the daemon's defaults
  --throttle-rps <n>  the simulators throttled at <n> requests a second (429 with Retry-After
                 past it, as the service does) and PAYSYNC_UPSTREAM_RPS=<n> for the daemon
                 (default: unthrottled, a budget of 200); also PAYSYNC_CHAOS_THROTTLE_RPS
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
    tenants: { type: 'string', default: '1' },
    'throttle-rps': { type: 'string' },
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
const tenantCount = Number(values.tenants);
if (tenantCount !== 1 && tenantCount !== CHAOS_TENANTS.length) {
  console.error(`--tenants must be 1 or ${CHAOS_TENANTS.length}, not ${values.tenants}`);
  process.exit(2);
}
if (items < 10 * tenantCount) {
  console.error(`--items must be at least 10 a tenant (${10 * tenantCount})`);
  process.exit(2);
}
const throttleValue = values['throttle-rps'] ?? process.env.PAYSYNC_CHAOS_THROTTLE_RPS;
const throttleRps = throttleValue === undefined || throttleValue === '' ? 0 : Number(throttleValue);
if (!Number.isInteger(throttleRps) || throttleRps < 0) {
  console.error(`--throttle-rps must be a whole number of requests a second, not ${throttleValue}`);
  process.exit(2);
}
const form = `${values.short ? 'short' : items >= 10_000 ? 'long' : `${items} items`}${
  throttleRps > 0 ? `, throttled at ${throttleRps} req/s` : ''
}`;
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
/**
 * The simulators' webhook retries (real ms): six within five minutes, then one after ten more.
 * The simulator's default (1 s, 5 s, 30 s, 2 min, 10 min) leaves a webhook that failed for 2.6
 * minutes waiting 10 more, and on SQLite every worker kill is one of the receiver too: on the
 * loaded 2-core machine a process serving two tenants was back 20 to 40 s after each, so the
 * first payment refunds of a run lost their first five tries, and payment refunds below the
 * lowest id paysync knows are found by no probe (docs/processing.md): the run waited for the
 * 10-minute retry (clean after 14.6 minutes). A real service retries for hours; webhooks lost
 * for good are the 5% dropped.
 */
const CHAOS_WEBHOOK_RETRIES_MS = [1_000, 5_000, 30_000, 60_000, 60_000, 120_000, 600_000];

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

/**
 * One set of books of the run: the one of PAYSYNC_* variables (`default`), or a tenant of the
 * tenants file. Each has a simulator of its own (its own merchant id, key and webhook secret), its
 * own database, its own relay consumer, and its own figures.
 */
interface ChaosBooks extends ChaosTenantPlan {
  readonly sim: RunningSimulator;
  readonly webhookSecret: string;
  /** The database of these books, as paysync reads it (search_path set on PostgreSQL). */
  readonly databaseUrl: string;
  /** The PostgreSQL schema, dropped afterwards. */
  readonly schema: string | undefined;
  /** `--tenant <name>` for a CLI command on these books, or nothing without a tenants file. */
  readonly tenantArgs: readonly string[];
  /** Where the simulator sends these books' webhooks. */
  readonly webhookPath: string;
  /** The script's own client of this simulator, in the books' environment. */
  readonly client: UpstreamClient;
  consumer?: ChaosRelayConsumer;
  /** The script's own connection to these books (set once the processes run). */
  database?: DatabaseHandle;
  /** Faults and events aimed at these books; each must fire at least once. */
  readonly injected: Record<string, number>;
  trafficErrors: number;
}

async function runConfiguration(config: 'sqlite' | 'postgres'): Promise<Outcome> {
  const injected: Record<string, number> = {
    'webhooks reordered (20%)': 0,
    "upstream 500s: rate set on paysync's reads (%)": 10,
    '429 bursts of 10 s': 0,
    '2 s latency spikes': 0,
    'worker kill -9 (every 5 s)': 0,
    'receiver kill -9': 0,
    'Redis FLUSHALL': 0,
    'Redis restart': 0,
    'PostgreSQL connections terminated': 0,
    'scheduler kill -9 during a sweep': 0,
  };
  const withTenants = tenantCount > 1;
  const plans: readonly ChaosTenantPlan[] = withTenants
    ? CHAOS_TENANTS.slice(0, tenantCount)
    : [{ name: 'default', environment: 'sandbox' }];
  const dir = mkdtempSync(join(tmpdir(), 'paysync-chaos-'));
  const redis = new PrivateRedis(await freePort());
  await redis.start();
  const appName = `paysync-chaos-${randomBytes(4).toString('hex')}`;
  const runId = randomBytes(5).toString('hex');
  /** The server of every tenant's schema, with the run's application_name (no search_path). */
  let serverUrl: string | undefined;
  if (config === 'postgres') {
    const url = new URL(postgresUrl);
    url.searchParams.set('application_name', appName);
    serverUrl = url.toString();
  }
  const databaseOf = (schema: string | undefined, file: string) => {
    if (!schema) return `sqlite:${file}`;
    const url = new URL(serverUrl!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return url.toString();
  };
  const itemsEach = Math.floor(items / plans.length);
  const books: ChaosBooks[] = [];
  for (const [index, plan] of plans.entries()) {
    const webhookSecret = generateWebhookSecret();
    // Every attempt listed (the simulator lists only the newest 10,000 by default): the table
    // counts the webhooks sent, duplicated and dropped from that list. Ten an item were too few
    // once the retries were seven: a receiver often down fills the list with failed retries,
    // and the first attempts were undercounted (376 of about 1,500). A live account's key
    // looks like one; each simulator has a merchant id of its own.
    const sim = await startSimulator({
      webhookSecret,
      seed: 14 + index,
      webhookAttemptsKept: itemsEach * 30,
      webhookRetryDelaysMs: CHAOS_WEBHOOK_RETRIES_MS,
      // The service's throttle (issue 37): 429 and Retry-After past it, shared by the daemon and
      // this script's own requests (refunds of the traffic), which retry them.
      ...(throttleRps > 0 ? { rps: throttleRps } : {}),
      ...(plan.environment === 'live'
        ? { apiKey: `sk_live_${randomBytes(18).toString('base64url')}` }
        : {}),
    });
    const schema = config === 'postgres' ? `chaos_${runId}_${index + 1}` : undefined;
    books.push({
      ...plan,
      sim,
      webhookSecret,
      schema,
      databaseUrl: databaseOf(schema, join(dir, withTenants ? `${plan.name}.db` : 'paysync.db')),
      tenantArgs: withTenants ? ['--tenant', plan.name] : [],
      webhookPath: withTenants ? `/webhooks/${plan.name}` : '/webhooks',
      client: createUpstreamClient({
        now: () => new Date(),
        baseUrl: sim.url,
        apiKey: sim.credentials.apiKey,
        merchantId: sim.credentials.merchantId,
        environment: plan.environment,
        rps: 100,
      }),
      injected: {
        'webhooks sent (first attempts)': 0,
        'webhooks duplicated (20%)': 0,
        'webhooks dropped (5%)': 0,
        'funding top-up booked with paysync adjust': 0,
        'OTP payments': 0,
        'relay consumer: deliveries answered 500 (20%)': 0,
        'relay consumer down (s)': 0,
        'relay: OTP payments seen open, then paid (several events each)': 0,
      },
      trafficErrors: 0,
    });
  }
  if (!withTenants && books[0]!.schema) {
    const admin = createDatabase(postgresUrl, { poolSize: 1 });
    await sql`create schema ${sql.id(books[0]!.schema)}`.execute(admin.db);
    await admin.close();
  }
  const daemonPort = await freePort();
  // The ops port (metrics, ops API) of its own: two chaos runs side by side must not share 9465.
  const opsPort = await freePort();
  // Without a tenants file, the books' settings are the PAYSYNC_* variables; with one, each
  // tenant's account, secrets and database are its entry's, and the secrets come from variables
  // the file names. Everything else applies to every tenant alike.
  const booksEnv: Record<string, string> = withTenants
    ? {
        PAYSYNC_TENANTS_FILE: writeChaosTenantsFile(
          dir,
          books.map((b) => ({
            name: b.name,
            environment: b.environment,
            merchantId: b.sim.credentials.merchantId,
            serviceUrl: b.sim.url,
            database: b.schema
              ? { postgres_schema: b.schema }
              : { sqlite: b.databaseUrl.slice('sqlite:'.length) },
          })),
        ),
        ...(serverUrl ? { PAYSYNC_DATABASE_URL: serverUrl } : {}),
        ...Object.fromEntries(
          books.flatMap((b, index) => [
            [secretVariables(index).apiKey, b.sim.credentials.apiKey],
            [secretVariables(index).webhookSecret, b.webhookSecret],
          ]),
        ),
      }
    : {
        PAYSYNC_DATABASE_URL: books[0]!.databaseUrl,
        PAYSYNC_WEBHOOK_SECRET: books[0]!.webhookSecret,
        PAYSYNC_API_KEY: books[0]!.sim.credentials.apiKey,
        PAYSYNC_MERCHANT_ID: books[0]!.sim.credentials.merchantId,
        PAYSYNC_UPSTREAM_URL: books[0]!.sim.url,
      };
  const env = {
    ...process.env,
    ...booksEnv,
    PAYSYNC_REDIS_URL: redis.url,
    PAYSYNC_QUEUE_PREFIX: `chaos-${config}`,
    PAYSYNC_PORT: String(daemonPort),
    PAYSYNC_OPS_PORT: String(opsPort),
    PAYSYNC_UPSTREAM_RPS: throttleRps > 0 ? String(throttleRps) : '200',
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
    // A live account stores endpoint secrets only encrypted (docs/relay.md, "Secrets at rest").
    PAYSYNC_SECRETS_KEY: `chaos:${randomBytes(32).toString('base64')}`,
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
  const cli = (args: readonly string[]) =>
    spawnSync(process.execPath, ['bin/paysync.js', ...args], {
      env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  // The simulator runs in this process: a CLI run while traffic flows must not block its event
  // loop (spawnSync did, for as long as `paysync adjust` took, and the traffic's own requests
  // to the simulator timed out).
  // Killed in the cleanup: a run that fails while a command runs must not leave it behind.
  const commands = new Set<ChildProcess>();
  const cliAsync = (args: readonly string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['bin/paysync.js', ...args], { env });
      commands.add(child);
      child.once('exit', () => commands.delete(child));
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  const stopSimulators = async () => {
    for (const b of books) await b.sim.stop();
  };
  const closeConsumers = async () => {
    for (const b of books) await b.consumer?.close();
  };
  const migrated = cli(withTenants ? ['tenants', 'migrate'] : ['migrate']);
  if (migrated.status !== 0) {
    await stopSimulators();
    throw new Error(`migrate failed: ${migrated.stderr}${migrated.stdout}`);
  }
  // Each merchant's consumer, registered with the real CLI before any traffic: it gets every
  // event of its books.
  for (const b of books) {
    b.consumer = await startChaosRelayConsumer({
      port: await freePort(),
      failRate: RELAY_FAIL_RATE,
    });
    const added = cli([
      'endpoints',
      'add',
      '--url',
      b.consumer.url,
      '--description',
      'chaos run consumer',
      '--json',
      ...b.tenantArgs,
    ]);
    if (added.status !== 0) {
      await closeConsumers();
      await stopSimulators();
      throw new Error(`paysync endpoints add ${b.tenantArgs.join(' ')} failed: ${added.stderr}`);
    }
    b.consumer.setSecret((JSON.parse(added.stdout) as { secret: string }).secret);
  }
  const consumerOf = (b: ChaosBooks) => b.consumer!;
  const dbOf = (b: ChaosBooks) => b.database!.db;

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
  // A minute: on the shared 2-core machine under load, a process serving two tenants took more
  // than the 20 s this used to allow to start once (the run crashed, though nothing was wrong).
  const receiverUp = async () => {
    for (let i = 0; i < 600; i += 1) {
      const ok = await fetch(`http://127.0.0.1:${daemonPort}/healthz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return;
      await sleep(100);
    }
    throw new Error('the receiver did not come up within 60 s');
  };
  // The script's own connections carry another name, so the terminated count is paysync's.
  for (const b of books) {
    b.database = createDatabase(
      b.databaseUrl.replace(`application_name=${appName}`, `application_name=${appName}-judge`),
    );
  }
  const startedAt = Date.now();
  try {
    await receiverUp();
    for (const b of books) {
      await b.client.createWebhook({ url: `http://127.0.0.1:${daemonPort}${b.webhookPath}` });
      // The simulator starts funded: book that as opening balances, so the audit's final
      // balances compare like with like.
      await takeBalanceSnapshot({
        db: dbOf(b),
        upstream: b.client,
        logger: createLogger({ level: 'silent' }),
        environment: b.environment,
        now: () => new Date(),
      });
      b.sim.control.setFaults({
        webhookDuplicateRate: 0.2,
        webhookReorderRate: 0.2,
        webhookDropRate: 0.05,
        errorRate: 0.1,
        // Faults hit what paysync reads, not the traffic generator's own refund requests.
        operations: [...DAEMON_OPERATIONS],
      });
    }
    const setFaultsEverywhere = (
      changes: Parameters<RunningSimulator['control']['setFaults']>[0],
    ) => {
      for (const b of books) b.sim.control.setFaults(changes);
    };

    // The fault schedule, on the traffic's own clock (seconds since it started).
    const workers = roles.filter((r) => r.name === 'start' || r.name.startsWith('work'));
    const receiver = roles.find((r) => r.name === 'start' || r.name === 'serve')!;
    const scheduler = roles.find((r) => r.name === 'start' || r.name === 'schedule')!;
    let consumerBack: Promise<unknown> = Promise.resolve();
    let stepwise: Promise<unknown> = Promise.resolve();
    // Most items are first seen by paysync already settled (one event each), which proves no
    // order. These payments need the sandbox OTP: they wait for it until paysync holds them
    // open, then are paid, so each gets two events or more whose order the check verifies.
    const stepwisePayments = async (b: ChaosBooks) => {
      const ids: string[] = [];
      for (let i = 0; i < STEPWISE_PAYMENTS; i += 1) {
        ids.push(
          b.sim.control.createPaymentIntent({
            mode: b.environment,
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
          dbOf(b),
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
          await cliAsync(['sweep', '--kind', 'intents', '--since', '10m', ...b.tenantArgs]);
        }
      }
      const open = await seenOpen();
      console.log(
        `  relay${withTenants ? ` (${b.name})` : ''}: ${open} of ${ids.length} OTP payments booked open (${sweeps} sweeps)`,
      );
      // Their OTP is asked for after a moment of the service's time; then they are paid.
      b.sim.control.advance(1_500);
      for (const id of ids) {
        try {
          b.sim.control.submitOtp(id, '123456');
        } catch {
          // not waiting for an OTP: it settles on its own path
        }
      }
      b.sim.control.advance(10_000);
      b.injected['relay: OTP payments seen open, then paid (several events each)'] = open;
    };
    let tick = 0;
    let faulting = true;
    // How long the receiver was away after each kill -9 of its process: webhooks sent meanwhile
    // fail and wait for the simulator's retries (1 s, 5 s, 30 s, 2 min, 10 min), and the fault
    // phase's ticks stretch by as much.
    const receiverDownMs: number[] = [];
    const receiverBack = async (killedAt: number) => {
      await receiverUp();
      receiverDownMs.push(Date.now() - killedAt);
    };
    // A fault that throws ends the fault phase, and the run fails once the traffic is sent,
    // through the cleanup below: an unhandled rejection would leave the processes and the private
    // Redis running after the script is gone.
    let faultError: unknown;
    const faults = (async () => {
      while (faulting) {
        await sleep(1000);
        tick += 1;
        if (tick % 5 === 0) {
          const killedAt = Date.now();
          await restart(workers[Math.floor(Math.random() * workers.length)]!);
          injected['worker kill -9 (every 5 s)']! += 1;
          if (config === 'sqlite') await receiverBack(killedAt);
        }
        if (tick === 8 || tick === 38) {
          setFaultsEverywhere({ throttleRate: 1 });
          injected['429 bursts of 10 s']! += 1;
        }
        if (tick === 18 || tick === 48) setFaultsEverywhere({ throttleRate: 0 });
        if (tick === 24) {
          // A funding top-up at each service, booked by hand as the merchant would.
          for (const b of books) {
            b.sim.control.fund({
              accountType: 'transfer',
              currency: 'XOF',
              amount: 5_000_000,
              mode: b.environment,
            });
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
              ...b.tenantArgs,
            ]);
            if (booked.status !== 0) throw new Error(`paysync adjust failed: ${booked.stderr}`);
            b.injected['funding top-up booked with paysync adjust']! += 1;
          }
        }
        if (tick === 28) {
          // Payments that need the sandbox OTP (payer ending 0001), answered.
          for (const b of books) {
            for (let i = 0; i < 5; i += 1) {
              const intent = b.sim.control.createPaymentIntent({
                mode: b.environment,
                amount: 2500 + i,
                purchaseReference: `chaos-otp-${i}`,
                customerReference: 'chaos-otp',
                phoneNumber: `+2217610000${i}0001`,
              });
              b.sim.control.advance(1_500);
              try {
                b.sim.control.submitOtp(intent.id, '123456');
                b.injected['OTP payments']! += 1;
              } catch {
                // not waiting for an OTP (yet): it settles on its own path
              }
            }
          }
        }
        if (tick === RELAY_DOWN_AT_TICK) {
          // Down for a stretch of wall time: the fault loop's ticks stretch while it waits.
          for (const b of books) await consumerOf(b).down();
          consumerBack = sleep(RELAY_DOWN_MS).then(() =>
            Promise.all(books.map((b) => consumerOf(b).up())),
          );
          consumerBack.catch(() => undefined);
        }
        if (tick === 10) {
          stepwise = Promise.all(books.map(stepwisePayments));
          // Awaited after the faults; until then a rejection must not end the process.
          stepwise.catch(() => undefined);
        }
        if (tick === 22) {
          setFaultsEverywhere({ latencyMs: 2000 });
          injected['2 s latency spikes']! += 1;
        }
        if (tick === 26) setFaultsEverywhere({ latencyMs: 0 });
        if (tick === 12) {
          const killedAt = Date.now();
          await restart(receiver);
          injected['receiver kill -9']! += 1;
          await receiverBack(killedAt);
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
          // Every tenant's connections carry the run's application_name.
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
          // With tenants, the one scheduler schedules every tenant's sweeps: the first tenant's
          // records say when one runs.
          const watched = dbOf(books[0]!);
          const before = await sql<{ id: number | null }>`select max(id) as id from scheduled_runs
            where task = 'sweep'`.execute(watched);
          const after = Number(before.rows[0]?.id ?? 0);
          let sweeping = false;
          for (let i = 0; i < 600 && !sweeping; i += 1) {
            const running = await sql<{ n: number }>`select count(*) as n from scheduled_runs
              where task = 'sweep' and id > ${after} and outcome = 'running'`.execute(watched);
            sweeping = Number(running.rows[0]?.n) > 0;
            if (!sweeping) await sleep(100);
          }
          const killedAt = Date.now();
          await restart(scheduler);
          if (sweeping) injected['scheduler kill -9 during a sweep']! += 1;
          else
            console.log('  no sweep started within 60 s: the scheduler was killed between sweeps');
          if (config === 'sqlite') await receiverBack(killedAt);
        }
      }
    })().catch((error: unknown) => {
      faultError = error;
      faulting = false;
    });
    // Every simulator's traffic at once, into the one set of processes.
    await Promise.all(
      books.map(async (b) => {
        const transfers = Math.round(itemsEach * 0.4);
        const paymentIntents = Math.round(itemsEach * 0.4);
        const refunds = Math.round(itemsEach * 0.1);
        const paymentRefunds = itemsEach - transfers - paymentIntents - refunds;
        // Payment links ride along: created through the control surface, synced by sweeps.
        b.sim.control.seed({
          kind: 'payment_link',
          count: Math.max(1, Math.round(itemsEach / 100)),
          mode: b.environment,
        });
        await generateMixedTraffic(b.sim, b.client, {
          transfers,
          paymentIntents,
          refunds,
          paymentRefunds,
          mode: b.environment,
          batch: 50,
          pauseMs: 100,
          onRequestError: (error) => {
            b.trafficErrors += 1;
            console.log(
              `  a refund request of the traffic${withTenants ? ` of ${b.name}` : ''} failed (the truth decides): ${reasonOf(error)}`,
            );
          },
        });
      }),
    );
    const seconds = () => Math.round((Date.now() - startedAt) / 1000);
    console.log(`  traffic sent after ${seconds()} s (fault tick ${tick})`);
    // Keep the faults up for at least a minute of traffic, so each one fires once.
    while (tick < 60 && faulting) await sleep(500);
    faulting = false;
    await faults;
    if (faultError !== undefined) throw faultError;
    await Promise.all([consumerBack, stepwise]);
    console.log(`  faults over after ${seconds()} s; quiescing`);
    const truths = new Map(books.map((b) => [b.name, b.sim.control.groundTruth()]));
    setFaultsEverywhere({
      webhookDuplicateRate: 0,
      webhookReorderRate: 0,
      webhookDropRate: 0,
      errorRate: 0,
      throttleRate: 0,
      latencyMs: 0,
    });
    for (const b of books) {
      const attempts = b.sim.control.webhookAttempts();
      b.injected['webhooks sent (first attempts)'] = attempts.filter(
        (a) => a.attempt === 1 && !a.duplicate,
      ).length;
      b.injected['webhooks duplicated (20%)'] = attempts.filter((a) => a.duplicate).length;
      b.injected['webhooks dropped (5%)'] = attempts.filter((a) => a.outcome === 'dropped').length;
    }
    // The simulator does not record which deliveries it held back; the rate is what was set.
    delete injected['webhooks reordered (20%)'];
    injected['webhooks reordered: rate set (%)'] = 20;

    // Quiesce: every process up, then audit each set of books until it is clean and every
    // follow-up is consumed (one whose job Redis lost is handed out again after 20 s here), or
    // time is up. Each tenant's books are judged against its own simulator's truth.
    const deadline = Date.now() + (values.short ? 9 : 20) * 60_000;
    const failedOf = (b: ChaosBooks) =>
      truths.get(b.name)!.items.filter((i) => i.kind === 'transfer' && i.status === 'failed');
    interface Judgement {
      audit: { status: number | null; stdout: string; stderr: string };
      notOnce: ReturnType<typeof failedOf>;
      alertCount: Map<string, number>;
      unconsumed: number;
    }
    const judgements = new Map<string, Judgement>();
    const judged = (j: Judgement | undefined) =>
      j !== undefined && j.audit.status === 0 && j.unconsumed === 0 && j.notOnce.length === 0;
    for (;;) {
      for (const role of roles) {
        if (role.child.exitCode !== null || role.child.signalCode !== null) await restart(role);
      }
      for (const b of books) {
        // The audit reads the truth from a file: the simulator it would otherwise ask is this
        // process, and the run must not depend on serving it while waiting for the audit.
        const truthFile = join(dir, `ground-truth-${b.name}.json`);
        writeFileSync(truthFile, JSON.stringify(b.sim.control.groundTruth()));
        const audit = await cliAsync(['audit', '--truth', truthFile, ...b.tenantArgs]);
        const alerted = await sql<{ subject: string; n: number }>`select subject, count(*) as n
          from alerts where kind = 'transfer_failed' group by subject`.execute(dbOf(b));
        const alertCount = new Map(alerted.rows.map((r) => [r.subject, Number(r.n)]));
        const notOnce = failedOf(b).filter((t) => alertCount.get(t.id) !== 1);
        const waiting = await sql<{ n: number }>`select count(*) as n from outbox
          where consumed_at is null`.execute(dbOf(b));
        const unconsumed = Number(waiting.rows[0]?.n);
        judgements.set(b.name, { audit, notOnce, alertCount, unconsumed });
        console.log(
          `  ${new Date().toISOString()}${withTenants ? ` ${b.name}:` : ''} audit exit ${audit.status}; follow-ups not consumed ${unconsumed}; failed transfers not alerted once ${notOnce.length}`,
        );
      }
      if (books.every((b) => judged(judgements.get(b.name))) || Date.now() > deadline) break;
      await sleep(15_000);
    }
    // Close the books' days, as the scheduler would after midnight: the balance task's
    // end-of-day snapshots and the verdict task, with their clock just past tonight's midnight.
    // A run of minutes closes no day by itself, and the relay owes one day.verdict per judged day.
    // Each tenant's days are its own: its snapshots, its verdicts, its relay events.
    const afterMidnight = () =>
      new Date(Date.parse(dayWindow(dayOf(new Date(), CHAOS_TIMEZONE), CHAOS_TIMEZONE).to) + 1000);
    // The script's connection writes beside the running daemon: on SQLite a write of the daemon
    // can hold the lock past the 5 s busy timeout on the loaded machine (a two-tenant run crashed
    // here on `database is locked`), so each write is tried again while the database is busy.
    const whileBusy = async <T>(write: () => Promise<T>): Promise<T> => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await write();
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || attempt >= 12) throw error;
          console.log(`  the database is busy (${reasonOf(error)}); trying again`);
          await sleep(1000);
        }
      }
    };
    for (const b of books) {
      const closing = await whileBusy(() =>
        runBalanceTask(
          {
            db: dbOf(b),
            upstream: b.client,
            logger: createLogger({ level: 'silent' }),
            environment: b.environment,
            now: afterMidnight,
          },
          { timeZone: CHAOS_TIMEZONE },
        ),
      );
      const verdicts = await whileBusy(() =>
        judgeClosedDays({
          db: dbOf(b),
          environment: b.environment,
          timeZone: CHAOS_TIMEZONE,
          now: afterMidnight,
        }),
      );
      console.log(
        `  days closed${withTenants ? ` (${b.name})` : ''}: ${closing.endOfDay.length} end-of-day snapshots; verdicts ${verdicts.map((j) => `${j.day} ${j.verdict}`).join(', ') || 'none'}`,
      );
      b.injected['days closed and judged (one day.verdict each)'] = verdicts.length;
      // The verdict task ran on a clock ahead of the real one, so its deliveries are due at that
      // time: make them due now, as they would be after a real midnight.
      const realNow = new Date().toISOString();
      await whileBusy(() =>
        sql`update relay_deliveries set next_attempt_at = ${realNow}
          where state = 'pending' and next_attempt_at > ${realNow}
            and event_id in (select id from relay_events where type = 'day.verdict')`.execute(
          dbOf(b),
        ),
      );
    }

    // The relay: everything delivered (retries included), then each consumer against its books.
    // A fact read from the books has its event and deliveries committed with it: a second wait
    // covers one that changed between the first wait and the reading.
    const relayDeadline = Date.now() + 5 * 60_000;
    const tenantOutcomes: TenantOutcome[] = [];
    const notFired: string[] = Object.entries(injected)
      .filter(([fault, n]) => n === 0 && !(config === 'sqlite' && fault.startsWith('PostgreSQL')))
      .map(([fault]) => fault);
    let allClean = true;
    for (const b of books) {
      const consumer = consumerOf(b);
      const named = (line: string) => (withTenants ? `${b.name}: ${line}` : line);
      let relayProblems: string[] = [];
      let relayFound: Record<string, number> = {};
      for (let round = 0; round < 2; round += 1) {
        const quiet = await waitForRelayQuiet(dbOf(b), relayDeadline);
        if (quiet !== undefined) {
          relayProblems = [quiet];
          const pending = await cliAsync(['endpoints', 'pending', '--limit', '5', ...b.tenantArgs]);
          console.log(`  ${named(quiet)}\n${pending.stdout.trim()}`);
          break;
        }
        const checked = await checkRelayConsumer(dbOf(b), consumer);
        relayProblems = checked.problems;
        relayFound = checked.found;
        if (round === 1 || relayProblems.length === 0) {
          console.log(
            `  ${named(`relay events received by type: ${JSON.stringify(checked.byType)}`)}`,
          );
          break;
        }
      }
      for (const problem of relayProblems) console.log(`  ${named(`relay check: ${problem}`)}`);
      const consumed = consumer.figures();
      b.injected['relay consumer: deliveries answered 500 (20%)'] = consumed.answered500;
      b.injected['relay consumer down (s)'] = Math.round(consumed.downMs / 1000);

      const { audit, notOnce, alertCount, unconsumed } = judgements.get(b.name)!;
      const byCount = new Map<number, string[]>();
      for (const t of notOnce) {
        const n = alertCount.get(t.id) ?? 0;
        byCount.set(n, [...(byCount.get(n) ?? []), t.id]);
      }
      for (const [n, ids] of byCount) {
        console.log(
          `  ${named(`failed transfers alerted ${n} times: ${ids.length} (e.g. ${ids.slice(0, 3).join(', ')})`)}`,
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
        dbOf(b),
      );
      // The audit compares the books' items of the tenant's environment only (it passes over a
      // row of another mode): an item of another environment here came from another account.
      const foreign = await sql<{ n: number }>`select count(*) as n from (
          select mode from transfers union all select mode from payment_intents
          union all select mode from refunds) as held
        where mode is not null and mode <> ${b.environment}`.execute(dbOf(b));
      const otherEnvironment = Number(foreign.rows[0]?.n);
      // Every fault aimed at these books must have fired at least once, as every fault of the run.
      for (const [fault, n] of Object.entries(b.injected)) {
        if (n === 0) notFired.push(named(fault));
      }
      const found = {
        'refund requests of the traffic that failed (the truth decides)': b.trafficErrors,
        'items in the simulator (with payment links)': truths.get(b.name)!.items.length,
        'items in the ledger (transfers, intents, refunds)': Number(counts.rows[0]?.items),
        'items of another environment in the ledger': otherEnvironment,
        journals: Number(counts.rows[0]?.journals),
        'transfer refunds first seen by a sweep (refund list)': Number(
          counts.rows[0]?.refunds_by_sweep,
        ),
        'payment refunds first seen by a sweep (id probe)': Number(
          counts.rows[0]?.payment_refunds_by_sweep,
        ),
        'failed transfers': failedOf(b).length,
        'failed transfers not alerted exactly once': notOnce.length,
        'follow-ups (alerts, receipts) not consumed': unconsumed,
        ...relayFound,
        'relay check problems': relayProblems.length,
        'audit exit code': audit.status ?? -1,
      };
      const clean =
        audit.status === 0 &&
        otherEnvironment === 0 &&
        notOnce.length === 0 &&
        unconsumed === 0 &&
        relayProblems.length === 0;
      if (!clean) allClean = false;
      tenantOutcomes.push({
        name: b.name,
        environment: b.environment,
        injected: b.injected,
        found,
        audit: `${audit.stdout}${audit.stderr}`.trim(),
      });
    }
    for (const fault of notFired) console.log(`  fault that did not fire: ${fault}`);
    const sortedDown = [...receiverDownMs].sort((a, b) => a - b);
    const found = {
      'faults that did not fire': notFired.length,
      'processes that exited on their own (restarted)': exits.length,
      'receiver back after a kill -9: median / slowest (s)':
        sortedDown.length === 0
          ? '-'
          : `${(sortedDown[Math.floor(sortedDown.length / 2)]! / 1000).toFixed(1)} / ${(sortedDown.at(-1)! / 1000).toFixed(1)}`,
      'minutes, traffic to clean': ((Date.now() - startedAt) / 60_000).toFixed(1),
    };
    const clean = allClean && notFired.length === 0;
    if (!clean) {
      for (const role of roles) {
        const tail = readFileSync(join(dir, `${role.name}.log`), 'utf8')
          .trim()
          .split('\n');
        console.log(`  last lines of ${role.name}'s stderr:\n${tail.slice(-10).join('\n')}`);
      }
    }
    const processes =
      config === 'sqlite' ? 'SQLite, paysync start' : 'PostgreSQL, serve + schedule + 3 work';
    return {
      config: withTenants ? `${processes}, ${books.length} tenants` : processes,
      tenantsFile: withTenants,
      injected,
      found,
      tenants: tenantOutcomes,
      clean,
    };
  } finally {
    running = false;
    for (const role of roles) role.child.kill('SIGKILL');
    for (const command of commands) command.kill('SIGKILL');
    await stopSimulators();
    await closeConsumers();
    for (const b of books) await b.database?.close().catch(() => undefined);
    await redis.stop();
    const schemas = books.flatMap((b) => (b.schema ? [b.schema] : []));
    if (schemas.length > 0) {
      const admin = createDatabase(postgresUrl, { poolSize: 1 });
      for (const schema of schemas) {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
      }
      await admin.close();
    }
    if (process.env.PAYSYNC_CHAOS_KEEP === '1') console.log(`  kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

const outcomes: Outcome[] = [];
for (const config of configs) {
  console.log(
    `\n=== chaos run (${form}), ${config}${tenantCount > 1 ? `, ${tenantCount} tenants` : ''} ===`,
  );
  const outcome = await runConfiguration(config);
  outcomes.push(outcome);
  printOutcome(outcome);
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
      ...outcomeTables(outcome),
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
