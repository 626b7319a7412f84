import { loadConfig, type Config } from '../../../src/config/index.ts';
import { startDaemon, type DaemonRole, type RunningDaemon } from '../../../src/daemon/index.ts';
import { createLogger } from '../../../src/logger.ts';
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
  type SimulatorOptions,
} from '../../../src/sim/index.ts';
import { createUpstreamClient, type UpstreamClient } from '../../../src/upstream/index.ts';
import { freshDatabase, type TestDatabase } from '../../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../support/test-redis.ts';

export interface DaemonFixture {
  readonly database: TestDatabase;
  readonly sim: RunningSimulator;
  readonly config: Config;
  /** An API client with the simulator's credentials (to create refunds, register webhooks). */
  readonly client: UpstreamClient;
  readonly prefix: string;
  /** Environment a child `paysync` process needs to join this deployment. */
  readonly env: Record<string, string>;
  daemon: RunningDaemon | undefined;
  /** Every log line the in-process daemon wrote (at `PAYSYNC_LOG_LEVEL`, silent by default). */
  readonly logs: string[];
  /** Starts (or restarts) the in-process daemon with these roles. */
  startDaemon(
    roles: readonly DaemonRole[],
    overrides?: Record<string, string>,
  ): Promise<RunningDaemon>;
  /** Registers `url` (default: the in-process receiver) for every event. */
  registerWebhook(url?: string): Promise<void>;
  cleanup(): Promise<void>;
}

export interface FixtureOptions {
  readonly sim?: SimulatorOptions;
  readonly env?: Record<string, string>;
  readonly redisUrl?: string;
}

/**
 * A simulator on a frozen clock an hour behind real time (so `advance` never pushes the
 * service's timestamps past our `now`), a fresh database of the current dialect, a unique
 * queue prefix, and the configuration that ties them together.
 */
export async function createDaemonFixture(options: FixtureOptions = {}): Promise<DaemonFixture> {
  const database = await freshDatabase();
  const webhookSecret = generateWebhookSecret();
  const sim = await startSimulator({
    freezeClock: true,
    startAt: new Date(Date.now() - 3_600_000),
    webhookSecret,
    webhookRetryDelaysMs: [200, 500, 1000, 2000, 4000, 8000],
    // Bursts of deliveries share one busy event loop with the daemon; be patient before a retry.
    webhookTimeoutMs: 20_000,
    ...options.sim,
  });
  const prefix = uniqueRedisPrefix('proc');
  const redisUrl = options.redisUrl ?? TEST_REDIS_URL;
  const env: Record<string, string> = {
    PAYSYNC_UPSTREAM_URL: sim.url,
    PAYSYNC_API_KEY: sim.credentials.apiKey,
    PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
    PAYSYNC_DATABASE_URL: database.url,
    PAYSYNC_REDIS_URL: redisUrl,
    PAYSYNC_WEBHOOK_SECRET: webhookSecret,
    PAYSYNC_QUEUE_PREFIX: prefix,
    PAYSYNC_UPSTREAM_RPS: '5000',
    PAYSYNC_UPSTREAM_CONCURRENCY: '32',
    PAYSYNC_UPSTREAM_TIMEOUT_MS: '30000',
    PAYSYNC_WORKER_CONCURRENCY: '16',
    PAYSYNC_LOG_LEVEL: process.env.PAYSYNC_TEST_LOG_LEVEL ?? 'silent',
    ...options.env,
  };
  const config = loadConfig(env);
  const client = createUpstreamClient({
    now: () => new Date(),
    baseUrl: sim.url,
    apiKey: sim.credentials.apiKey,
    merchantId: sim.credentials.merchantId,
    rps: 5000,
    concurrency: 16,
    // A busy test machine can be slow; the traffic must not fail for it.
    timeoutMs: 60_000,
  });
  const fixture: DaemonFixture = {
    database,
    sim,
    config,
    client,
    prefix,
    env,
    daemon: undefined,
    logs: [],
    async startDaemon(roles, overrides = {}) {
      const daemonConfig = loadConfig({ ...env, ...overrides });
      const echo = process.env.PAYSYNC_TEST_LOG_LEVEL !== undefined;
      const destination = {
        write(line: string) {
          fixture.logs.push(line);
          if (echo) process.stdout.write(line);
        },
      };
      fixture.daemon = await startDaemon({
        config: daemonConfig,
        logger: createLogger({ level: daemonConfig.logLevel, pretty: false, destination }),
        roles,
        queuePrefix: prefix,
        port: 0,
        host: '127.0.0.1',
      });
      return fixture.daemon;
    },
    async registerWebhook(url) {
      const target = url ?? `${fixture.daemon!.receiver!.url}${config.webhook.path}`;
      await client.createWebhook({ url: target });
    },
    async cleanup() {
      await fixture.daemon?.stop().catch(() => undefined);
      await sim.stop().catch(() => undefined);
      await database.cleanup().catch(() => undefined);
      await deleteRedisPrefix(prefix, redisUrl).catch(() => undefined);
    },
  };
  return fixture;
}

/**
 * Work waiting on the ingest and sync queues of a deployment (for pacing test traffic): an
 * ingest or single sync job counts one, a sync batch counts its resources.
 */
export async function queueBacklog(daemon: Pick<RunningDaemon, 'queues'>): Promise<number> {
  const [ingest, sync] = await Promise.all([
    daemon.queues.ingest.getJobCounts('waiting', 'prioritized'),
    daemon.queues.sync.getJobs(['waiting', 'prioritized', 'delayed']),
  ]);
  const syncWork = sync.reduce((sum, job) => {
    const data = job?.data as { refs?: readonly unknown[] } | undefined;
    return sum + (Array.isArray(data?.refs) ? data.refs.length : job ? 1 : 0);
  }, 0);
  return (ingest.waiting ?? 0) + (ingest.prioritized ?? 0) + syncWork;
}
