import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  alertCountsByState,
  AlertRulesError,
  createAlertRuntime,
  type AlertRuntime,
  type AlertRuntimeOptions,
} from '../alerts/index.ts';
import { latestSnapshots } from '../balances/index.ts';
import type { Config } from '../config/index.ts';
import type { Database, DatabaseHandle } from '../db/index.ts';
import { systemClock, type Clock, type Component } from '../lifecycle/index.ts';
import {
  addScrapeSource,
  collectProcessMetrics,
  tenantMetrics,
  type MetricReader,
  type MetricsServer,
} from '../metrics/index.ts';
import { openDiscrepancyCounts, openDriftDetails } from '../ledger/index.ts';
import { outboxBacklog, type OutboxDispatcher } from '../outbox/index.ts';
import { lastSuccessByTask } from '../runs/index.ts';
import { type OpsProcessState, type OpsServer, type TenantOpsApi } from '../ops/index.ts';
import { createQueues, QUEUE_KEYS, type Queues } from '../queues/index.ts';
import type { RelayDeliverer } from '../relay/index.ts';
import {
  checkReadiness,
  createSignatureVerifier,
  type Readiness,
  type ReceiverServer,
} from '../receiver/index.ts';
import { CredentialGuard, type CredentialCheck } from '../reconcile/index.ts';
import { clientOptionsFromConfig } from '../upstream/index.ts';
import { openCheckedRedis, openMigratedDatabase } from './preflight.ts';
import { databaseWriteWatch } from './database-write-watch.ts';
import {
  composeProcess,
  opsRole,
  receiveRole,
  scheduleRole,
  workRole,
  type OpsRole,
  type ReceiveRole,
  type RoleContext,
  type WorkRole,
} from './roles.ts';
import { StartupError } from '../lifecycle/index.ts';
import type { WorkerPool } from './worker-pool.ts';

/** The roles of paysync: `start` runs all three, `serve`/`work`/`schedule` one each. */
export type DaemonRole = 'receiver' | 'workers' | 'scheduler';

export interface DaemonOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly roles: readonly DaemonRole[];
  /** BullMQ prefix; tests give each run its own. @defaultValue `config.processing.queuePrefix` */
  readonly queuePrefix?: string;
  /** Receiver port; 0 picks a free one. @defaultValue `config.port` */
  readonly port?: number;
  /** Receiver interface. @defaultValue `config.host` (`PAYSYNC_HOST`, `0.0.0.0`) */
  readonly host?: string;
  /**
   * Port of metrics, the ops API and the dashboard, with the receiver role; 0 picks a free one.
   * @defaultValue `config.ops.port` (`startDaemon`: 0)
   */
  readonly opsPort?: number;
  /**
   * Interface of the ops port, and of the metrics server of a process without the receiver.
   * @defaultValue `config.ops.host` (`PAYSYNC_OPS_HOST`, `127.0.0.1`)
   */
  readonly opsHost?: string;
  /** The sessions and failure throttle of the process's ops surfaces (several tenants share one). */
  readonly opsState?: OpsProcessState;
  /** Tries before a 404 becomes `unknown_upstream_resource`. @defaultValue 3 */
  readonly notFoundAttempts?: number;
  /** How often the outbox dispatcher polls without a wake-up, in ms. @defaultValue 1000 */
  readonly outboxPollMs?: number;
  /** How often the relay deliverer polls without a wake-up, in ms. @defaultValue 1000 */
  readonly relayPollMs?: number;
  /**
   * The clock every job reads: resolved here, once, and passed down. Tests move it.
   * @defaultValue the machine's clock
   */
  readonly now?: Clock;
  /** Alert pacing and clock overrides (tests). @defaultValue from `config.alerts` */
  readonly alerts?: Partial<AlertRuntimeOptions> & { readonly pollMs?: number };
  /** How often the database's writes are probed, in ms (tests). @defaultValue 10000 */
  readonly databaseWriteCheckMs?: number;
  /** Receiver pacing overrides (tests): how often the backlog is counted, how long it stays low before its alert resolves. */
  readonly receiver?: { readonly backlogRefreshMs?: number; readonly backpressureCalmMs?: number };
  /**
   * Port of the metrics and health server of a process without the receiver role; 0 picks a
   * free one. @defaultValue `config.metricsPort` (`startDaemon`: 0)
   */
  readonly metricsPort?: number;
  /**
   * The tenant this daemon books, in a process serving several (createTenantsDaemon): named in
   * its alerts and traces; its one metrics handle (tenantMetrics, made here) sets it as the
   * `tenant` label of every series its work moves and of its scrape gauges. @defaultValue none
   * (no label: a process of one tenant reads as before tenants)
   */
  readonly tenant?: string;
  /**
   * Part of a process serving several tenants: the receiver does not listen (its `app` is
   * mounted on the process's one port), and there is no metrics server nor ops API of this
   * tenant's own. @defaultValue false
   */
  readonly shared?: boolean;
  /**
   * Part of a process serving several tenants (`shared`): the tenants a dashboard session (its
   * cookie value) may see, listed by this tenant's dashboard's switcher. @defaultValue this
   * tenant alone
   */
  readonly tenantsOf?: (session: string) => readonly string[];
}

export interface Daemon {
  /** In start order; stop them in reverse (`stopAll`, `runUntilSignal`). */
  readonly components: readonly Component[];
  readonly db: Kysely<Database>;
  /** Queues on the worker connection (what jobs and the scheduler use). */
  readonly queues: Queues;
  readonly receiver: ReceiverServer | undefined;
  readonly workers: WorkerPool | undefined;
  /** The outbox dispatcher of the workers role (hands follow-ups to BullMQ). */
  readonly outbox: OutboxDispatcher | undefined;
  /** The relay deliverer of the workers role (POSTs events to the merchant's endpoints). */
  readonly relay: RelayDeliverer | undefined;
  /** The `/metrics`, `/healthz`, `/readyz` server of a process without the receiver role. */
  readonly metricsServer: MetricsServer | undefined;
  /**
   * The ops port of a process with the receiver role (metrics, health, ops API, dashboard);
   * undefined without the receiver role or when shared by several tenants.
   */
  readonly opsServer: OpsServer | undefined;
  /** Set once the workers started: what the start-up credential check found. */
  credentialCheck(): CredentialCheck | undefined;
  /** Whether this daemon's database and Redis answer and its credentials hold (`/readyz`). */
  readiness(): Promise<Readiness>;
  /**
   * In a process serving several tenants (`shared`), this tenant's ops API, for the front to
   * mount under `/api/v1/tenants/<tenant>/`; undefined without admin tokens or not shared.
   */
  readonly ops: TenantOpsApi | undefined;
}

/**
 * Opens the database and Redis, refuses to go on when migrations are pending or Redis may
 * evict jobs, and builds the components of the requested roles. Nothing takes work until the
 * components are started. The composition root of the daemon: it mounts the doors (receiver,
 * jobs, cron table) on the domain.
 */
export async function createDaemon(options: DaemonOptions): Promise<Daemon> {
  const { config, logger } = options;
  const now = options.now ?? systemClock;
  const roles = new Set(options.roles);
  const prefix = options.queuePrefix ?? config.processing.queuePrefix;
  // Fail on missing service credentials before opening anything.
  const clientOptions = roles.has('workers') ? clientOptionsFromConfig(config, now) : undefined;
  const { tenant } = options;
  // The tenant's one metrics handle: every series its components move goes through it.
  const metrics = tenantMetrics(tenant);
  // A bad alert rule file stops every role: an operator must not believe alerts are routed.
  let alerts: AlertRuntime;
  try {
    alerts = createAlertRuntime(config.alerts, logger, {
      now,
      ...options.alerts,
      environment: options.alerts?.environment ?? config.environment,
    });
  } catch (error) {
    if (error instanceof AlertRulesError) throw new StartupError(error.message);
    throw error;
  }
  // Then signing, still before the database: a refused set-up should not need one to say so.
  const verifier = roles.has('receiver') ? createSignatureVerifier(config, logger) : undefined;

  const opened: { close(): Promise<void> }[] = [];
  const closeOpened = async () => {
    for (const resource of opened.reverse()) await resource.close().catch(() => undefined);
  };
  let database: DatabaseHandle;
  let receiverDatabase: DatabaseHandle | undefined;
  // A receiver alone (`serve`) needs no blocking worker connection: its producer serves all.
  const receiverAlone = roles.has('receiver') && !roles.has('workers') && !roles.has('scheduler');
  let workerRedis: Redis | undefined;
  let producerRedis: Redis | undefined;
  try {
    // Every ingest and sync job may hold a connection at once, plus the scheduler's.
    database = await openMigratedDatabase(config, {
      poolSize: config.processing.concurrency * 2 + 4,
    });
    opened.push(database);
    if (roles.has('receiver') && roles.has('workers') && database.dialect === 'postgres') {
      // Webhooks must not queue behind sync transactions for a connection: a slow 2xx makes
      // the sender retry. (SQLite keeps one connection: its writes are serial anyway.)
      const ownPool = await openMigratedDatabase(config, { poolSize: 5 });
      receiverDatabase = ownPool;
      opened.push(ownPool);
    }
    if (!receiverAlone) {
      // The workers' connection warns once when PAYSYNC_REDIS_EVICTION_CHECK=skip let it start.
      const worker = await openCheckedRedis(config, 'worker', { logger });
      workerRedis = worker;
      opened.push({ close: () => worker.quit().then(() => undefined) });
    }
    if (roles.has('receiver')) {
      // The receiver must never wait on Redis to answer a webhook: its own fail-fast connection
      // (a receiver alone has no other).
      // A receiver alone (serve) has no workers' connection to warn: this one does.
      const producer = await openCheckedRedis(config, 'producer', receiverAlone ? { logger } : {});
      producerRedis = producer;
      opened.push({ close: () => producer.quit().then(() => undefined) });
    }
  } catch (error) {
    await closeOpened();
    throw error;
  }
  const redis = (workerRedis ?? producerRedis)!;
  const db = database.db;
  const queues = createQueues({ connection: redis, prefix });
  const producerQueues =
    producerRedis && workerRedis ? createQueues({ connection: producerRedis, prefix }) : undefined;
  try {
    await Promise.all([queues.waitUntilReady(), producerQueues?.waitUntilReady()]);
  } catch (error) {
    await Promise.allSettled([queues.close(), producerQueues?.close()]);
    await closeOpened();
    throw error;
  }
  const credentials = new CredentialGuard(db, queues, logger);
  // Gauges whose data other components own: alerts by state, last successful run per task.
  const metricReaders: MetricReader[] = [
    {
      metric: 'alerts',
      read: async () =>
        (await alertCountsByState(db)).map(({ state, count }) => ({
          labels: { state },
          value: count,
        })),
    },
    {
      metric: 'lastSuccess',
      read: async () =>
        (await lastSuccessByTask(db)).map(({ task, finishedAt }) => ({
          labels: { task },
          value: Date.parse(finishedAt) / 1000,
        })),
    },
    {
      metric: 'followUps',
      read: async () =>
        (await outboxBacklog(db)).map(({ kind, waiting }) => ({
          labels: { kind },
          value: waiting,
        })),
    },
  ];
  const stopScraping = addScrapeSource({
    queues: QUEUE_KEYS.map((key) => queues[key]),
    db,
    books: {
      openDiscrepancyCounts: () => openDiscrepancyCounts(db),
      openDriftDetails: (limit) => openDriftDetails(db, { limit }),
      newestSnapshots: (environment) => latestSnapshots(db, environment),
    },
    environment: config.environment,
    readers: metricReaders,
    metrics,
  });
  metrics.showTenantSeries();

  const resources: Component = {
    name: 'connections',
    async start() {},
    async stop() {
      stopScraping();
      await producerQueues?.close();
      await queues.close();
      await producerRedis?.quit().catch(() => producerRedis?.disconnect());
      await workerRedis?.quit().catch(() => workerRedis?.disconnect());
      await receiverDatabase?.close();
      await database.close();
      await alerts.close();
    },
  };
  const readiness = () => checkReadiness({ db, redis, now });
  const context: RoleContext = {
    config,
    logger,
    now,
    db,
    queues,
    redis,
    alerts,
    tenant,
    metrics,
    readiness,
  };
  const receiverDb = receiverDatabase?.db ?? db;
  let work: WorkRole | undefined;
  let receive: ReceiveRole | undefined;
  let ops: OpsRole;
  try {
    work = clientOptions
      ? workRole(context, {
          prefix,
          client: clientOptions,
          credentials,
          notFoundAttempts: options.notFoundAttempts,
          outboxPollMs: options.outboxPollMs,
          relayPollMs: options.relayPollMs,
          alertsPollMs: options.alerts?.pollMs,
        })
      : undefined;
    receive =
      producerRedis && verifier
        ? receiveRole(context, {
            db: receiverDb,
            redis: producerRedis,
            queues: producerQueues ?? queues,
            verifier,
            port: options.port ?? config.port,
            host: options.host ?? config.host,
            shared: options.shared ?? false,
            ...(options.receiver ? { pacing: options.receiver } : {}),
          })
        : undefined;
    const receiver = receive?.receiver;
    ops = opsRole(context, {
      // Started after the receiver (below), so its start-up line names the bound port.
      receiverPort: receiver ? () => receiver.port : undefined,
      db: receiverDb,
      shared: options.shared ?? false,
      role: roles.has('workers') ? 'work' : 'schedule',
      port: options.opsPort,
      host: options.opsHost,
      metricsPort: options.metricsPort,
      state: options.opsState,
      tenantsOf: options.tenantsOf,
    });
  } catch (error) {
    // A refused set-up, say: close what was opened, then say why.
    await resources.stop().catch(() => undefined);
    throw error;
  }
  const schedule = roles.has('scheduler') ? scheduleRole(context) : undefined;
  // Without the receiver, health and metrics come first; with it, intake starts last and stops
  // first, and the ops port's start-up line names the receiver's bound port.
  const components = [
    resources,
    databaseWriteWatch(context, { prefix, database, intervalMs: options.databaseWriteCheckMs }),
    ...composeProcess(receive ? [work, schedule, receive, ops] : [ops, work, schedule]),
  ];
  collectProcessMetrics();
  return {
    components,
    db,
    queues,
    receiver: receive?.receiver,
    workers: work?.workers,
    outbox: work?.outbox,
    relay: work?.relay,
    metricsServer: ops.metricsServer,
    opsServer: ops.opsServer,
    credentialCheck: () => work?.credentialCheck(),
    readiness,
    ops: ops.tenantApi,
  };
}
