import type { Logger } from 'pino';
import { isLoopbackHost, type Config } from '../config/index.ts';
import {
  StartupError,
  startupErrorFrom,
  stopAll,
  systemClock,
  type Clock,
  type Component,
} from '../lifecycle/index.ts';
import type { MetricsServer } from '../metrics/index.ts';
import {
  createTenantsFront,
  type Readiness,
  type TenantsFront,
  tenantsReadiness,
  type TenantsReadiness,
} from '../receiver/index.ts';
import { reasonOf } from '../error-reason.ts';
import {
  createOpsServer,
  createTenantsDashboard,
  createTenantsOpsRoutes,
  opsProcessState,
  opsStartupLine,
  TenantsAccess,
  type OpsServer,
} from '../ops/index.ts';
import { createDaemon, type Daemon, type DaemonRole } from './create-daemon.ts';
import { metricsServerComponent } from './metrics-component.ts';
import { composeProcess, type ProcessRole } from './roles.ts';
import { tenantOutageAlerts, type TenantOutageAlerts } from './tenant-outage-alerts.ts';

/** One tenant's name and its whole configuration (its database, account, queue prefix). */
export interface DaemonTenant {
  readonly name: string;
  readonly config: Config;
}

export interface TenantsDaemonOptions {
  /** At least one; their process-wide settings (port, webhook path, limits) are the first's. */
  readonly tenants: readonly DaemonTenant[];
  readonly logger: Logger;
  readonly roles: readonly DaemonRole[];
  /** The one receiver port; 0 picks a free one. @defaultValue the first tenant's `config.port` */
  readonly port?: number;
  /** @defaultValue the first tenant's `config.host` (`PAYSYNC_HOST`) */
  readonly host?: string;
  /** The ops port; 0 picks a free one. @defaultValue the first tenant's `config.ops.port` */
  readonly opsPort?: number;
  /** The ops port's interface. @defaultValue the first tenant's `config.ops.host` */
  readonly opsHost?: string;
  /** Port of the metrics server of a process without the receiver role. @defaultValue `config.metricsPort` */
  readonly metricsPort?: number;
  /** @defaultValue the machine's clock */
  readonly now?: Clock;
  /** How often a tenant that could not start is tried again, in ms. @defaultValue 30000 */
  readonly retryMs?: number;
}

export interface TenantsDaemon {
  /** In start order: every tenant's, then the front. Stop them in reverse. */
  readonly components: readonly Component[];
  /** Each running tenant's daemon, by name (a tenant started late is added when it starts). */
  readonly tenants: ReadonlyMap<string, Daemon>;
  /** The one receiver port, for the receiver role. */
  readonly front: TenantsFront | undefined;
  /** The one ops port (metrics, detailed readiness, ops API, dashboards), for the receiver role. */
  readonly opsServer: OpsServer | undefined;
  /** `/metrics`, `/healthz`, `/readyz` of a process without the receiver role. */
  readonly metricsServer: MetricsServer | undefined;
  readiness(): Promise<TenantsReadiness>;
}

/**
 * One set of processes for every tenant (issue 25, docs/tenants.md): a daemon per tenant, each
 * on its own database, queue prefix, service account and scheduled tasks, in this process. The
 * receiver role listens on one port and hands `POST <webhook path>/<tenant>` to that tenant's
 * receiver; the other roles share one metrics server. A tenant that cannot start (its database
 * down or not migrated, a refused signing set-up) is paused alone: its path answers 503, `/readyz`
 * names it with the reason, and it is tried again every `retryMs` while the others run. Only
 * when no tenant can start is the start refused, each tenant named.
 */
export async function createTenantsDaemon(options: TenantsDaemonOptions): Promise<TenantsDaemon> {
  const [first] = options.tenants;
  if (!first) throw new StartupError('no tenant to serve: the tenants file lists none');
  const retryMs = options.retryMs ?? 30_000;
  /** `Retry-After` of a paused tenant's webhooks and pages: when it is tried again. */
  const retryAfterSeconds = Math.ceil(retryMs / 1000);
  // From the configs, so that a tenant paused at start-up is still listed to whom may see it.
  const access = new TenantsAccess(
    options.tenants.map((tenant) => ({
      name: tenant.name,
      tokens: tenant.config.ops.adminTokens,
    })),
  );
  // One set of sessions and one failure throttle for every tenant's dashboard and API.
  const opsState = opsProcessState(first.config, options.logger, options.now ?? systemClock);
  const tenantsOf = (session: string) => access.tenantsOfToken(opsState.sessions.tokenOf(session));
  const create = (tenant: DaemonTenant) =>
    createDaemon({
      config: tenant.config,
      logger: options.logger.child({ tenant: tenant.name }),
      roles: options.roles,
      tenant: tenant.name,
      shared: true,
      tenantsOf,
      opsState,
      ...(options.now ? { now: options.now } : {}),
    });
  const daemons = new Map<string, Daemon>();
  const outageAlerts = tenantOutageAlerts({
    logger: options.logger,
    now: options.now ?? systemClock,
    retryMs,
  });
  /** Tenants that could not start, with why; retried every `retryMs` once the process runs. */
  const down = new Map<string, string>();
  for (const tenant of options.tenants) {
    try {
      daemons.set(tenant.name, await create(tenant));
    } catch (error) {
      down.set(tenant.name, refusalOf(error));
      options.logger.error(
        { tenant: tenant.name, reason: down.get(tenant.name) },
        `tenant ${tenant.name} cannot start; the other tenants go on, and it is retried every ${retryMs / 1000} s`,
      );
    }
  }
  if (daemons.size === 0) {
    throw new StartupError(
      [...down].map(([name, reason]) => `tenant ${name}: ${reason}`).join('; '),
    );
  }
  const tenantStates = options.tenants.map((tenant) => ({
    name: tenant.name,
    get app() {
      return daemons.get(tenant.name)?.receiver?.app;
    },
    get unavailable() {
      return down.get(tenant.name);
    },
    readiness: (): Promise<Readiness> => {
      const daemon = daemons.get(tenant.name);
      if (daemon) return daemon.readiness();
      return Promise.resolve({
        ready: false,
        reasons: [`not running: ${down.get(tenant.name) ?? 'starting'}`],
      });
    },
  }));
  const readiness = () => tenantsReadiness(tenantStates);
  const tenantComponents = [...daemons.values()].flatMap((daemon) => daemon.components);
  // Before the front: it stops after intake stopped, and stops the tenants it started late.
  tenantComponents.push(
    retryComponent({
      tenants: options.tenants.filter((tenant) => down.has(tenant.name)),
      retryMs,
      logger: options.logger,
      alerts: outageAlerts,
      reasons: down,
      start: async (tenant) => {
        const daemon = await create(tenant);
        const started: Component[] = [];
        try {
          for (const component of daemon.components) {
            await component.start();
            started.push(component);
          }
        } catch (error) {
          // The connections come first and start without fail, so this closes them too.
          await stopAll(started);
          throw error;
        }
        daemons.set(tenant.name, daemon);
        down.delete(tenant.name);
        outageAlerts.up(tenant.name);
        return () => stopAll(started).then(() => undefined);
      },
      failed: (tenant, reason) => {
        down.set(tenant.name, reason);
        outageAlerts.down(tenant, reason);
      },
    }),
  );
  let front: TenantsFront | undefined;
  let opsServer: OpsServer | undefined;
  let metricsServer: MetricsServer | undefined;
  const opsComponents: Component[] = [];
  if (options.roles.includes('receiver')) {
    front = createTenantsFront({
      tenants: tenantStates,
      webhookPath: first.config.webhook.path,
      port: options.port ?? first.config.port,
      host: options.host ?? first.config.host,
      maxInFlight: first.config.receiver.maxInFlight,
      connectionsPerClient: first.config.receiver.connectionsPerClient,
      logger: options.logger,
      retryAfterSeconds,
    });
    const ops = first.config.ops;
    const opsHost = options.opsHost ?? ops.host;
    const tokens = [...new Set(options.tenants.flatMap((tenant) => tenant.config.ops.adminTokens))];
    const receiverPort = front;
    opsServer = createOpsServer({
      routes: createTenantsOpsRoutes({
        tenants: options.tenants.map((tenant) => ({
          name: tenant.name,
          ops: () => daemons.get(tenant.name)?.ops,
          unavailable: () => down.get(tenant.name),
        })),
        throttle: opsState.throttle,
        access,
        retryAfterSeconds,
        dashboard: createTenantsDashboard({
          access,
          logger: options.logger,
          retryAfterSeconds,
          secureCookie: ops.https,
          sessions: opsState.sessions,
          throttle: opsState.throttle,
          tenants: options.tenants.map((tenant) => ({
            name: tenant.name,
            dashboard: () => daemons.get(tenant.name)?.ops?.dashboard,
            unavailable: () => down.get(tenant.name),
          })),
        }),
      }),
      port: options.opsPort ?? ops.port,
      host: opsHost,
      logger: options.logger,
      readiness,
      ...(!isLoopbackHost(opsHost) ? { metricsTokens: [...tokens, ...ops.metricsTokens] } : {}),
      throttle: opsState.throttle,
      trustProxy: first.config.receiver.trustProxy,
      connectionsPerClient: first.config.receiver.connectionsPerClient,
      startupLine: (url) =>
        opsStartupLine({
          tokens,
          url,
          host: opsHost,
          public: !isLoopbackHost(opsHost),
          receiverPort: receiverPort.port,
        }),
    });
    opsComponents.push(opsServer);
  } else {
    const made = metricsServerComponent({
      port: options.metricsPort ?? first.config.metricsPort,
      host: options.opsHost ?? first.config.ops.host,
      ...(!isLoopbackHost(options.opsHost ?? first.config.ops.host)
        ? {
            bearerTokens: [
              ...new Set(options.tenants.flatMap((tenant) => tenant.config.ops.adminTokens)),
              ...first.config.ops.metricsTokens,
            ],
          }
        : {}),
      role: options.roles.includes('workers') ? 'work' : 'schedule',
      logger: options.logger,
      connectionsPerClient: first.config.receiver.connectionsPerClient,
      readiness,
    });
    metricsServer = made.server;
    opsComponents.push(made.component);
  }
  const tenants: ProcessRole = { name: 'tenants', components: tenantComponents };
  const ops: ProcessRole = { name: 'ops', components: opsComponents };
  // The roles of the process, around every tenant's: the front last to start, first to stop
  // (intake stops before any tenant's workers drain), then the ops port (its start-up line
  // names the front's bound port); without the receiver, health and metrics first.
  const components = composeProcess(
    front ? [tenants, { name: 'receive', components: [front] }, ops] : [ops, tenants],
  );
  return { components, tenants: daemons, front, opsServer, metricsServer, readiness };
}

/** A refusal to start, as one line; `paysync migrate` becomes `paysync tenants migrate`. */
function refusalOf(error: unknown): string {
  const refusal = startupErrorFrom(error);
  const reason = refusal?.message ?? reasonOf(error);
  // Each tenant is migrated with `paysync tenants migrate` (`migrate` needs --tenant here).
  return reason.replace('`paysync migrate`', '`paysync tenants migrate`');
}

/**
 * Tries the tenants that could not start again every `retryMs` once the process runs; stops
 * those it started when the process stops.
 */
function retryComponent(options: {
  readonly tenants: readonly DaemonTenant[];
  readonly retryMs: number;
  readonly logger: Logger;
  /** Told of the tenants down at start once the process runs; closed when it stops. */
  readonly alerts: TenantOutageAlerts;
  /** Why each tenant down at start could not start. */
  readonly reasons: ReadonlyMap<string, string>;
  /** Creates and starts the tenant's daemon; resolves to its stopper, or rejects. */
  start(tenant: DaemonTenant): Promise<() => Promise<void>>;
  /** The tenant could not start, for `reason` (one line). */
  failed(tenant: DaemonTenant, reason: string): void;
}): Component {
  const waiting = [...options.tenants];
  const stoppers: (() => Promise<void>)[] = [];
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;
  let stopped = false;
  const tryAll = async () => {
    for (const tenant of [...waiting]) {
      if (stopped) return;
      try {
        stoppers.push(await options.start(tenant));
        waiting.splice(waiting.indexOf(tenant), 1);
        options.logger.info({ tenant: tenant.name }, `tenant ${tenant.name} started`);
      } catch (error) {
        const reason = refusalOf(error);
        options.failed(tenant, reason);
        options.logger.warn(
          { tenant: tenant.name, reason },
          `tenant ${tenant.name} still cannot start; tried again in ${options.retryMs / 1000} s`,
        );
      }
    }
  };
  const schedule = () => {
    if (stopped || waiting.length === 0) return;
    timer = setTimeout(() => {
      round = tryAll().finally(schedule);
    }, options.retryMs);
    timer.unref();
  };
  return {
    name: 'tenant retries',
    async start() {
      for (const tenant of waiting) {
        options.alerts.down(tenant, options.reasons.get(tenant.name) ?? 'it could not start');
      }
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
      for (const stop of stoppers.reverse()) await stop();
      await options.alerts.close();
    },
  };
}
