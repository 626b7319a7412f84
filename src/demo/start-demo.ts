import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { takeBalanceSnapshot } from '../balances/index.ts';
import { loadConfig, type Config } from '../config/index.ts';
import { startDaemon, type RunningDaemon } from '../daemon/index.ts';
import { createDatabase, migrateToLatest } from '../db/index.ts';
import { systemClock } from '../lifecycle/index.ts';
import { deletePrefixedKeys } from '../queues/index.ts';
import { generateWebhookSecret, startSimulator, type RunningSimulator } from '../sim/index.ts';
import { latestFailedTransferId } from '../ledger/index.ts';
import { createUpstreamClient } from '../upstream/index.ts';
import { collectDemoSummary, type DemoSummary } from './demo-summary.ts';
import { demoRedis, type DemoRedis } from './private-redis.ts';
import { createDemoTraffic, type DemoTraffic } from './demo-traffic.ts';

export interface DemoOptions {
  /** SQLite file of the demo's books; replaced at start. */
  readonly databaseFile: string;
  /**
   * Where Redis runs. When nothing answers there and `redis-server` is on the PATH, the demo
   * starts a private one on a free port, with nothing on disk, and stops it with the demo.
   * @defaultValue `redis://127.0.0.1:6379`
   */
  readonly redisUrl?: string;
  /** One-line notices for the user (the private Redis). @defaultValue none shown */
  readonly say?: (line: string) => void;
  /** Receiver port; 0 picks a free one. @defaultValue 0 */
  readonly port?: number;
  /** Where the daemon's and simulator's log lines go (never the summary's terminal). */
  readonly logger: Logger;
  /** Milliseconds between traffic ticks. @defaultValue 500 */
  readonly tickMs?: number;
  /** Slack incoming-webhook URL for the demo's alerts (beside the log sink). @defaultValue none */
  readonly alertSlackUrl?: string;
}

export interface RunningDemo {
  readonly simUrl: string;
  /** Where the simulator delivers webhooks. */
  readonly webhookUrl: string;
  /** `sqlite:<absolute path>`, for `PAYSYNC_DATABASE_URL`. */
  readonly databaseUrl: string;
  readonly queuePrefix: string;
  /** The Redis in use; `private` when the demo started it. */
  readonly redis: { readonly url: string; readonly private: boolean };
  /** The dashboard, ops API and metrics, on the ops port (loopback): `http://127.0.0.1:<port>/`. */
  readonly dashboardUrl: string;
  /** The `PAYSYNC_ADMIN_TOKEN` made for this run (the dashboard's and API's bearer token). */
  readonly adminToken: string;
  summary(): Promise<DemoSummary>;
  /** A failed transfer's id, once the ledger holds one: the thing to `paysync show`. */
  failedTransferId(): Promise<string | undefined>;
  /**
   * Stops generating traffic, gives the daemon up to `timeoutMs` to process what is left, then
   * takes a closing balance snapshot of the drained books.
   */
  drain(timeoutMs: number): Promise<void>;
  /** Stops traffic, daemon and simulator, and removes the demo's keys from Redis. */
  stop(): Promise<void>;
}

/**
 * The demo's pace: a simulator that answers at once, and minutes of a real deployment's
 * schedule in seconds, so a short run shows each task's work (sweeps for missed webhooks,
 * balance snapshots against the ledger, the day's verdict). The screenshot script runs at it too.
 */
export const DEMO_PACE = {
  PAYSYNC_UPSTREAM_RPS: '1000',
  PAYSYNC_UPSTREAM_CONCURRENCY: '16',
  PAYSYNC_WORKER_CONCURRENCY: '8',
  PAYSYNC_RECOVERY_AFTER_SECONDS: '30',
  PAYSYNC_SWEEP_CRON: '*/15 * * * * *',
  PAYSYNC_JANITOR_CRON: '*/5 * * * * *',
  PAYSYNC_BALANCE_CRON: '*/10 * * * * *',
  PAYSYNC_VERDICT_CRON: '*/15 * * * * *',
} as const;

function demoConfig(
  options: DemoOptions,
  sim: RunningSimulator,
  secret: string,
  prefix: string,
  redisUrl: string,
  adminToken: string,
): Config {
  return loadConfig({
    PAYSYNC_UPSTREAM_URL: sim.url,
    PAYSYNC_API_KEY: sim.credentials.apiKey,
    PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
    PAYSYNC_ENVIRONMENT: 'sandbox',
    PAYSYNC_DATABASE_URL: `sqlite:${options.databaseFile}`,
    PAYSYNC_REDIS_URL: redisUrl,
    PAYSYNC_ADMIN_TOKEN: adminToken,
    PAYSYNC_PORT: String(options.port || 8080),
    PAYSYNC_WEBHOOK_SECRET: secret,
    PAYSYNC_QUEUE_PREFIX: prefix,
    ...DEMO_PACE,
    ...(options.alertSlackUrl ? { PAYSYNC_ALERT_SLACK_URL: options.alertSlackUrl } : {}),
    PAYSYNC_SHUTDOWN_TIMEOUT_MS: '5000',
    PAYSYNC_LOG_LEVEL: options.logger.level,
    // Beside the demo's books, never in a real deployment's receipt archive.
    PAYSYNC_RECEIPTS_DIR: join(dirname(options.databaseFile), 'demo-receipts'),
  });
}

/**
 * `paysync demo` in-process: the simulator, a freshly migrated SQLite file, the daemon (receiver,
 * workers and scheduler) on its own queue prefix, the webhook registered, and generated traffic.
 * Needs only Redis (started privately when none answers but `redis-server` is installed); the
 * credentials are the simulator's, the admin token is made for the run.
 */
export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  const started = Date.now();
  for (const suffix of ['', '-wal', '-shm'])
    rmSync(`${options.databaseFile}${suffix}`, { force: true });
  const migration = createDatabase(`sqlite:${options.databaseFile}`);
  try {
    await migrateToLatest(migration.db);
  } finally {
    await migration.close();
  }

  const redis: DemoRedis = await demoRedis(
    options.redisUrl ?? 'redis://127.0.0.1:6379',
    options.say ?? (() => undefined),
  );
  try {
    return await startDemoOn(options, redis, started);
  } catch (error) {
    await redis.stop();
    throw error;
  }
}

async function startDemoOn(
  options: DemoOptions,
  redis: DemoRedis,
  started: number,
): Promise<RunningDemo> {
  const { logger } = options;
  const secret = generateWebhookSecret();
  // A token of this run only: the dashboard and the ops API are on for it.
  const adminToken = randomBytes(24).toString('base64url');
  // Ten minutes behind real time, so moving its clock forward never dates anything in our future.
  const sim = await startSimulator({
    port: 0,
    webhookSecret: secret,
    startAt: new Date(started - 10 * 60_000),
    webhookRetryDelaysMs: [500, 1000, 2000, 5000, 10_000],
    logger: logger.child({ role: 'sim' }),
  });
  const prefix = `paysync-demo-${randomBytes(4).toString('hex')}`;
  const config = demoConfig(options, sim, secret, prefix, redis.url, adminToken);
  const redisUrl = config.redisUrl;
  const client = createUpstreamClient({
    baseUrl: sim.url,
    ...sim.credentials,
    environment: 'sandbox',
    rps: 1000,
    maxRetries: 2,
    now: systemClock,
  });
  let daemon: RunningDaemon;
  try {
    // The simulator starts funded: a first snapshot, before any traffic, books that as opening
    // balances, so the scheduled snapshots compare the service with the ledger like for like.
    const books = createDatabase(config.databaseUrl);
    try {
      await takeBalanceSnapshot({
        db: books.db,
        upstream: client,
        logger: logger.child({ role: 'demo' }),
        environment: config.environment,
        now: systemClock,
      });
    } finally {
      await books.close();
    }
    daemon = await startDaemon({
      config,
      logger,
      roles: ['receiver', 'workers', 'scheduler'],
      now: systemClock,
      queuePrefix: prefix,
      port: options.port ?? 0,
      host: '127.0.0.1',
      // The dashboard, the ops API and metrics on a free port of their own, on loopback.
      opsHost: '127.0.0.1',
    });
  } catch (error) {
    await sim.stop();
    throw error;
  }
  const webhookUrl = `${daemon.receiver!.url}${config.webhook.path}`;
  const traffic: DemoTraffic = createDemoTraffic({
    sim,
    client,
    logger: logger.child({ role: 'demo-traffic' }),
    ...(options.tickMs !== undefined ? { tickMs: options.tickMs } : {}),
  });
  try {
    await client.createWebhook({ url: webhookUrl, description: 'paysync demo' });
  } catch (error) {
    await daemon.stop();
    await sim.stop();
    await deletePrefixedKeys(redisUrl, prefix).catch(() => undefined);
    throw error;
  }
  traffic.start();

  let stopping: Promise<void> | undefined;
  const context = {
    environment: config.environment,
    timeZone: config.books.timeZone,
    now: systemClock,
  };
  return {
    simUrl: sim.url,
    webhookUrl,
    databaseUrl: `sqlite:${options.databaseFile}`,
    queuePrefix: prefix,
    redis: { url: redis.url, private: redis.private },
    dashboardUrl: `${daemon.opsServer!.url}/`,
    adminToken,
    summary: () =>
      collectDemoSummary(daemon.db, sim, traffic.counts, Date.now() - started, context),
    async failedTransferId() {
      return latestFailedTransferId(daemon.db);
    },
    async drain(timeoutMs) {
      await traffic.stop();
      const deadline = Date.now() + timeoutMs;
      let quiet = false;
      while (!quiet && Date.now() < deadline) {
        const { webhooks } = await collectDemoSummary(daemon.db, sim, traffic.counts, 0);
        quiet = webhooks.open === 0;
        if (!quiet) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // A scheduled snapshot taken while traffic ran may have caught the service ahead of the
      // books (payments it settled whose webhooks were still on their way): a closing snapshot
      // on the drained books says whether they agree now, and resolves such a drift if they do.
      await takeBalanceSnapshot({
        db: daemon.db,
        upstream: client,
        logger: logger.child({ role: 'demo' }),
        environment: config.environment,
        fetch: {
          db: daemon.db,
          upstream: client,
          transferSearchHours: config.processing.transferSearchHours,
          now: systemClock,
        },
        now: systemClock,
      }).catch((error: unknown) =>
        logger.warn({ err: error }, 'demo: the closing balance snapshot failed'),
      );
    },
    stop() {
      stopping ??= (async () => {
        await traffic.stop();
        const failures = await daemon.stop();
        for (const failure of failures) {
          logger.warn(
            { component: failure.name, err: failure.error },
            'demo: a component did not stop cleanly',
          );
        }
        await sim.stop();
        // A private Redis goes away with everything in it; a shared one keeps nothing of ours.
        if (!redis.private) {
          await deletePrefixedKeys(redisUrl, prefix).catch((error: unknown) =>
            logger.warn({ err: error }, 'demo: could not remove its queue keys from Redis'),
          );
        }
        await redis.stop();
      })();
      return stopping;
    },
  };
}
