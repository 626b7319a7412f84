import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { cronTable } from '../../jobs/cron-table.ts';
import { jobProcessors } from '../../jobs/job-table.ts';
import { createAlertDeliverer, relayEndpointAlerts, type AlertRuntime } from '../alerts/index.ts';
import { isLoopbackHost, type Config } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import type { Clock, Component } from '../lifecycle/index.ts';
import type { MetricsServer, TenantMetrics } from '../metrics/index.ts';
import { mountOps, type OpsProcessState, type OpsServer, type TenantOpsApi } from '../ops/index.ts';
import { createOutboxDispatcher, type OutboxDispatcher } from '../outbox/index.ts';
import type { Queues } from '../queues/index.ts';
import {
  createReceiverServer,
  type Readiness,
  type ReceiverServer,
  type SignatureVerifier,
} from '../receiver/index.ts';
import type { CredentialCheck, CredentialGuard } from '../reconcile/index.ts';
import { createRelayDeliverer, type RelayDeliverer } from '../relay/index.ts';
import { createUpstreamClient, type UpstreamClientOptions } from '../upstream/index.ts';
import { metricsServerComponent } from './metrics-component.ts';
import { createScheduler } from './scheduler.ts';
import { createWorkerPool, type WorkerPool } from './worker-pool.ts';

/**
 * One role of a process: what it does (`receive` webhooks, `work` the queues, `schedule` the
 * cron table, serve `ops`: health, metrics, the ops API and dashboard) as the components that do
 * it. `start`, `serve`, `work`, `schedule` and the tenants daemon are each a list of roles.
 */
export interface ProcessRole {
  readonly name: 'receive' | 'work' | 'schedule' | 'ops' | 'tenants';
  /** In start order; the process stops them in reverse. */
  readonly components: readonly Component[];
}

/**
 * The one composition of a process: its roles' components in the order given, each role's in
 * its own order (a process stops them in reverse: intake first, then the workers drain).
 */
export function composeProcess(roles: readonly (ProcessRole | undefined)[]): Component[] {
  return roles.flatMap((role) => role?.components ?? []);
}

/** What every role of one set of books shares: settings, clock, connections, alerts. */
export interface RoleContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly now: Clock;
  readonly db: Kysely<Database>;
  /** The worker connection's queues (what jobs and the scheduler use). */
  readonly queues: Queues;
  readonly redis: Redis;
  readonly alerts: AlertRuntime;
  /**
   * The tenant's name in a process serving several, else none: named in its alerts, traces and
   * ops API (its series go through `metrics`).
   */
  readonly tenant: string | undefined;
  /** The tenant's one metrics handle: every series the roles' components move goes through it. */
  readonly metrics: TenantMetrics;
  readiness(): Promise<Readiness>;
}

const tenantOf = (context: RoleContext) =>
  context.tenant !== undefined ? { tenant: context.tenant } : {};

export interface WorkRole extends ProcessRole {
  readonly workers: WorkerPool;
  readonly outbox: OutboxDispatcher;
  readonly relay: RelayDeliverer;
  /** Set once the workers started: what the start-up credential check found. */
  credentialCheck(): CredentialCheck | undefined;
}

/** `work`: the BullMQ workers, then the outbox dispatcher, the relay and the alert deliverer. */
export function workRole(
  context: RoleContext,
  options: {
    readonly prefix: string;
    readonly client: UpstreamClientOptions;
    readonly credentials: CredentialGuard;
    readonly notFoundAttempts?: number | undefined;
    readonly outboxPollMs?: number | undefined;
    readonly relayPollMs?: number | undefined;
    readonly alertsPollMs?: number | undefined;
  },
): WorkRole {
  const { config, logger, db, queues, redis, now, alerts, metrics } = context;
  const tenant = tenantOf(context);
  const upstream = createUpstreamClient({ ...options.client, redis, logger, metrics });
  let credentialCheck: CredentialCheck | undefined;
  const processors = jobProcessors({
    db,
    queues,
    upstream,
    logger,
    credentials: options.credentials,
    transferSearchHours: config.processing.transferSearchHours,
    fetchConcurrency: config.upstream.concurrency,
    recoveryAfterMs: config.processing.recoveryAfterMs,
    syncBatchSize: config.processing.syncBatchSize,
    syncBatchHoldAfterCommitMs: config.processing.syncBatchHoldAfterCommitMs,
    ...(config.processing.windowReads ? {} : { windowReads: false as const }),
    janitor: config.janitor,
    exports: {
      ...config.exports,
      timeZone: config.books.timeZone,
      environment: config.environment,
    },
    pollPlan: config.janitor.scheduleMs,
    expectations: config.expectations,
    expectationBreakVerdict: config.expectations.breakVerdict,
    receiptsDir: config.receipts.dir,
    environment: config.environment,
    polling: config.polling,
    balances: config.balances,
    books: config.books,
    retention: config.retention,
    now,
    alerts,
    ...tenant,
    metrics,
    ...(options.notFoundAttempts !== undefined
      ? { notFoundAttempts: options.notFoundAttempts }
      : {}),
  });
  const workers = createWorkerPool({
    connection: redis,
    prefix: options.prefix,
    concurrency: config.processing.concurrency,
    lockMs: config.processing.jobLockMs,
    processors,
    logger,
    metrics,
    beforeStart: async () => {
      credentialCheck = await options.credentials.verifyAtStartup(upstream);
    },
  });
  // After the workers: it starts once they take jobs and stops before they drain.
  const outbox = createOutboxDispatcher({
    db,
    queues,
    logger,
    redispatchAfterMs: config.processing.outboxRedispatchMs,
    batchSize: config.processing.outboxBatchSize,
    now,
    metrics,
    ...(options.outboxPollMs !== undefined ? { pollMs: options.outboxPollMs } : {}),
  });
  // Every worker process delivers: the database leases spread the deliveries among them.
  const relay = createRelayDeliverer({
    db,
    settings: config.relay,
    environment: config.environment,
    logger,
    now,
    health: relayEndpointAlerts({ db, alerts }),
    ...tenant,
    metrics,
    ...(options.relayPollMs !== undefined ? { pollMs: options.relayPollMs } : {}),
  });
  const deliverer = createAlertDeliverer(
    { db, alerts },
    {
      queues,
      environment: config.environment,
      ...(options.alertsPollMs !== undefined ? { pollMs: options.alertsPollMs } : {}),
    },
  );
  return {
    name: 'work',
    components: [workers, outbox, relay, deliverer],
    workers,
    outbox,
    relay,
    credentialCheck: () => credentialCheck,
  };
}

/** `schedule`: the cron table, with slot-derived job ids (two schedulers never double-fire). */
export function scheduleRole(context: RoleContext): ProcessRole {
  const { config, logger, queues } = context;
  return {
    name: 'schedule',
    components: [createScheduler({ queues, entries: cronTable(config), logger })],
  };
}

export interface ReceiveRole extends ProcessRole {
  readonly receiver: ReceiverServer;
}

/** `receive`: the webhook receiver, on its own fail-fast Redis connection and queues. */
export function receiveRole(
  context: RoleContext,
  options: {
    /** The receiver's database (its own pool beside the workers on PostgreSQL). */
    readonly db: Kysely<Database>;
    readonly redis: Redis;
    readonly queues: Queues;
    readonly verifier: SignatureVerifier;
    readonly port: number;
    readonly host: string;
    /** Mounted on a shared front (several tenants): no port of its own. */
    readonly shared: boolean;
    readonly pacing?: { readonly backlogRefreshMs?: number; readonly backpressureCalmMs?: number };
  },
): ReceiveRole {
  const { config, logger, now, alerts } = context;
  const receiver = createReceiverServer({
    db: options.db,
    queues: options.queues,
    redis: options.redis,
    verifier: options.verifier,
    config,
    logger,
    now,
    syncBatch: {
      batchSize: config.processing.syncBatchSize,
      delayMs: config.processing.syncBatchWaitMs,
    },
    port: options.port,
    ...(options.shared ? { listen: false } : {}),
    alerts,
    ...tenantOf(context),
    metrics: context.metrics,
    ...options.pacing,
    host: options.host,
  });
  return { name: 'receive', components: [receiver], receiver };
}

export interface OpsRole extends ProcessRole {
  /** The ops port of a process with the receiver (metrics, health, ops API, dashboard). */
  readonly opsServer: OpsServer | undefined;
  /** The `/metrics`, `/healthz`, `/readyz` server of a process without the receiver. */
  readonly metricsServer: MetricsServer | undefined;
  /** A tenant's ops API, for the process serving several to mount under its prefix. */
  readonly tenantApi: TenantOpsApi | undefined;
}

/**
 * `ops`: with the receiver, the ops port (metrics, health, and with admin tokens the ops API and
 * dashboard); without it, the metrics and health server of `work` and `schedule`. A tenant of a
 * process serving several has neither: it hands its ops API to the process's one ops port.
 */
export function opsRole(
  context: RoleContext,
  options: {
    /** With the receiver role: its bound port, named by the ops port's start-up line. */
    readonly receiverPort: (() => number | undefined) | undefined;
    /** The database the ops API reads (the receiver's pool). */
    readonly db: Kysely<Database>;
    readonly shared: boolean;
    readonly role: 'work' | 'schedule';
    readonly port?: number | undefined;
    readonly host?: string | undefined;
    readonly metricsPort?: number | undefined;
    readonly state?: OpsProcessState | undefined;
    readonly tenantsOf?: ((session: string) => readonly string[]) | undefined;
  },
): OpsRole {
  const { config, logger } = context;
  if (options.receiverPort) {
    const ops = mountOps({
      config,
      db: options.db,
      queues: context.queues,
      logger,
      now: context.now,
      receiverPort: options.receiverPort,
      alerts: context.alerts,
      readiness: () => context.readiness(),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.host !== undefined ? { host: options.host } : {}),
      ...(options.state ? { state: options.state } : {}),
      ...(options.shared ? tenantOf(context) : {}),
      ...(options.tenantsOf ? { tenantsOf: options.tenantsOf } : {}),
    });
    return {
      name: 'ops',
      components: ops.components,
      opsServer: ops.server,
      metricsServer: undefined,
      tenantApi: ops.tenantApi,
    };
  }
  if (options.shared) {
    return {
      name: 'ops',
      components: [],
      opsServer: undefined,
      metricsServer: undefined,
      tenantApi: undefined,
    };
  }
  const host = options.host ?? config.ops.host;
  const made = metricsServerComponent({
    port: options.metricsPort ?? config.metricsPort,
    host,
    ...(!isLoopbackHost(host)
      ? { bearerTokens: [...config.ops.adminTokens, ...config.ops.metricsTokens] }
      : {}),
    role: options.role,
    logger,
    readiness: () => context.readiness(),
    connectionsPerClient: config.receiver.connectionsPerClient,
  });
  return {
    name: 'ops',
    components: [made.component],
    opsServer: undefined,
    metricsServer: made.server,
    tenantApi: undefined,
  };
}
