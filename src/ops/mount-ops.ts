import type { Kysely } from 'kysely';
import express, { Router, type Express, type RequestHandler } from 'express';
import type { AlertRuntime } from '../alerts/index.ts';
import { isLoopbackHost, type Config } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import type { Clock, Component } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import type { Queues } from '../queues/index.ts';
import { AuthThrottle } from './auth-throttle.ts';
import { createOpsRouters, opsStartupLine } from './create-ops-router.ts';
import { DashboardSessions } from './dashboard-sessions.ts';
import { AdminTokens, bearerOf } from './ops-auth.ts';
import { sendOpsError } from './ops-errors.ts';
import type { OpsFeatures } from './ops-features.ts';
import { createOpsServer, type OpsServer } from './ops-server.ts';

/** One tenant's ops API in a process serving several. */
export interface TenantOpsApi {
  /** Answers `/api/v1/…` (the ops port's front strips the tenant's prefix). */
  readonly app: Express;
  /** Whether an `Authorization` header carries one of this tenant's admin tokens. */
  readonly acceptsBearer: (authorization: string | undefined) => boolean;
  /**
   * The tenant's dashboard and bull-board, answering at `/…` (the process's dashboards' front,
   * createTenantsDashboard, strips `/tenants/<tenant>` and lets in only the sessions of this
   * tenant's tokens); its links start with `/tenants/<tenant>`.
   */
  readonly dashboard: RequestHandler;
}

export interface OpsMount {
  /**
   * With `tenant`: the tenant's ops API as an app of its own, for the process's ops port to
   * mount under `/api/v1/tenants/<tenant>/` (undefined when the tenant has no admin token).
   */
  readonly tenantApi?: TenantOpsApi | undefined;
  /** The ops port of a process of one tenant (start it after the receiver). */
  readonly server?: OpsServer | undefined;
  readonly components: readonly Component[];
}

/** What every ops surface of one process shares: its sessions and its failure throttle. */
export interface OpsProcessState {
  readonly sessions: DashboardSessions;
  readonly throttle: AuthThrottle;
}

/** The sessions and throttle of a process, with the expiries of its config. */
export function opsProcessState(config: Config, logger: Logger, now: Clock): OpsProcessState {
  return {
    sessions: new DashboardSessions({
      idleMs: config.ops.sessionIdleMs,
      maxMs: config.ops.sessionMaxMs,
      now,
    }),
    throttle: new AuthThrottle(logger, config.ops.authFailuresPerMinute),
  };
}

/**
 * The ops surfaces of a process that runs the receiver (`serve`, `start`): metrics, health, and
 * with admin tokens the ops API and dashboard, on the ops port (PAYSYNC_OPS_PORT, bound to
 * PAYSYNC_OPS_HOST), never on the receiver's. Its start-up line says where, who can reach it
 * and that the receiver's port no longer serves metrics.
 */
export function mountOps(options: {
  readonly config: Config;
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  readonly logger: Logger;
  /** The process's clock (see {@link OpsDependencies}). */
  readonly now: Clock;
  /** The receiver's port, for the start-up line (read once the ops port listens). */
  readonly receiverPort: number | (() => number | undefined);
  /** @defaultValue `config.ops.port` */
  readonly port?: number;
  /** @defaultValue `config.ops.host` */
  readonly host?: string;
  /** What the ops port's `/readyz` answers. */
  readonly readiness?: () => Promise<{ readonly ready: boolean }>;
  /** For acking and resolving alerts from the API and the dashboard. */
  readonly alerts?: AlertRuntime;
  readonly features?: OpsFeatures;
  /** The process's sessions and throttle. @defaultValue new ones from `config` */
  readonly state?: OpsProcessState;
  /**
   * The tenant whose ops API this is, in a process serving several: served on the process's
   * ops port under `/api/v1/tenants/<tenant>/…`, which the process builds (no server here).
   */
  readonly tenant?: string;
  /**
   * With `tenant`: the tenants a dashboard session (its cookie value) may see, listed by the
   * tenant switcher. @defaultValue this tenant alone
   */
  readonly tenantsOf?: (session: string) => readonly string[];
}): OpsMount {
  const { config, logger } = options;
  const tokens = config.ops.adminTokens;
  const tenant = options.tenant;
  const state = options.state ?? opsProcessState(config, logger, options.now);
  const routers =
    tokens.length === 0
      ? undefined
      : createOpsRouters({
          db: options.db,
          logger,
          now: options.now,
          tokens,
          environment: config.environment,
          timeZone: config.books.timeZone,
          queues: options.queues,
          receiptsDir: config.receipts.dir,
          exportsDir: config.exports.dir,
          relay: config.relay,
          expectations: config.expectations,
          janitor: config.janitor,
          balances: config.balances,
          secureCookie: config.ops.https,
          queueBoardActions: config.ops.queueBoardActions,
          sessions: state.sessions,
          throttle: state.throttle,
          ...(options.alerts ? { alerts: options.alerts } : {}),
          ...(options.features ? { features: options.features } : {}),
          ...(tenant !== undefined
            ? { tenantDashboard: { tenant, tenantsOf: options.tenantsOf ?? (() => [tenant]) } }
            : {}),
        });
  if (tenant !== undefined) {
    if (!routers) return { components: [] };
    // Mounted by the process's ops port under the tenant's prefix: an app of its own, whose
    // unknown routes answer as the API's do.
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.use(routers.api);
    app.use((_request, response) => sendOpsError(response, 404, 'not_found', 'no such route'));
    const admin = new AdminTokens(tokens);
    return {
      tenantApi: {
        app,
        acceptsBearer: (header) => admin.accepts(bearerOf(header)),
        dashboard: routers.dashboard,
      },
      components: [],
    };
  }
  const host = options.host ?? config.ops.host;
  // Open beyond loopback: /metrics wants a token.
  const open = !isLoopbackHost(host);
  const server = createOpsServer({
    ...(routers ? { routes: Router().use(routers.api, routers.dashboard) } : {}),
    port: options.port ?? config.ops.port,
    host,
    logger,
    ...(options.readiness ? { readiness: options.readiness } : {}),
    ...(open ? { metricsTokens: [...tokens, ...config.ops.metricsTokens] } : {}),
    throttle: state.throttle,
    trustProxy: config.receiver.trustProxy,
    connectionsPerClient: config.receiver.connectionsPerClient,
    startupLine: (url) =>
      opsStartupLine({
        tokens,
        url,
        host,
        public: open,
        receiverPort:
          typeof options.receiverPort === 'function'
            ? options.receiverPort()
            : options.receiverPort,
      }),
  });
  return { server, components: [server] };
}
