import type { Kysely } from 'kysely';
import type { AlertRuntime } from '../alerts/index.ts';
import type { Config } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import type { Clock, Component } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import type { Queues } from '../queues/index.ts';
import { createOpsRouters, opsStartupLine } from './create-ops-router.ts';
import { tenantDashboardBase } from './dashboard-layout.ts';
import { createOpsServer } from './ops-server.ts';
import { AdminTokens, bearerOf } from './ops-auth.ts';
import { OPS_API_BASE } from './ops-routes.ts';
import type { OpsFeatures } from './ops-features.ts';
import express, { Router, type Express, type RequestHandler } from 'express';
import { sendOpsError } from './ops-errors.ts';

/** One tenant's ops API in a process serving several. */
export interface TenantOpsApi {
  /** Answers `/api/v1/…` (the front strips the tenant's prefix). */
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
  /** Routes for the receiver's app (when the ops surfaces share its port). */
  readonly receiverRoutes: RequestHandler | undefined;
  /**
   * With `tenant`: the tenant's ops API as an app of its own, for the process's front to mount
   * under `/api/v1/tenants/<tenant>/` (undefined when the tenant has no admin token).
   */
  readonly tenantApi?: TenantOpsApi | undefined;
  /** A server of their own (when `PAYSYNC_OPS_PORT` differs); start after the receiver. */
  readonly components: readonly Component[];
}

/**
 * Decides where the ops surfaces go for a process that runs the receiver (`serve`, `start`),
 * and logs the one start-up line that says whether they are on. Nothing when no admin
 * token is configured.
 */
export function mountOps(options: {
  readonly config: Config;
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  readonly logger: Logger;
  /** The process's clock (see {@link OpsDependencies}). */
  readonly now: Clock;
  readonly receiverPort: number;
  /** @defaultValue `0.0.0.0` */
  readonly host?: string;
  /** For acking and resolving alerts from the API and the dashboard. */
  readonly alerts?: AlertRuntime;
  readonly features?: OpsFeatures;
  /**
   * The tenant whose ops API this is, in a process serving several: served on the receiver
   * port under `/api/v1/tenants/<tenant>/…` (whatever `PAYSYNC_OPS_PORT` says).
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
  const ownPort =
    options.tenant === undefined &&
    tokens.length > 0 &&
    config.ops.port !== undefined &&
    config.ops.port !== options.receiverPort;
  logger.info(
    options.tenant !== undefined && tokens.length > 0
      ? `ops API and dashboard of tenant ${options.tenant} on at the receiver port ${options.receiverPort}, under ${OPS_API_BASE}/tenants/${options.tenant}/ and ${tenantDashboardBase(options.tenant)}/ (${tokens.length} admin token${tokens.length === 1 ? '' : 's'})`
      : opsStartupLine(
          tokens,
          ownPort ? `port ${config.ops.port}` : `the receiver port ${options.receiverPort}`,
        ),
  );
  if (tokens.length === 0) return { receiverRoutes: undefined, components: [] };
  const tenant = options.tenant;
  const { api, dashboard } = createOpsRouters({
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
    ...(options.alerts ? { alerts: options.alerts } : {}),
    ...(options.features ? { features: options.features } : {}),
    ...(tenant !== undefined
      ? { tenantDashboard: { tenant, tenantsOf: options.tenantsOf ?? (() => [tenant]) } }
      : {}),
  });
  if (tenant !== undefined) {
    // Mounted by the process's front under the tenant's prefix: an app of its own, whose
    // unknown routes answer as the API's do.
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.use(api);
    app.use((_request, response) => sendOpsError(response, 404, 'not_found', 'no such route'));
    const admin = new AdminTokens(tokens);
    return {
      receiverRoutes: undefined,
      tenantApi: { app, acceptsBearer: (header) => admin.accepts(bearerOf(header)), dashboard },
      components: [],
    };
  }
  const routes = Router().use(api, dashboard);
  if (!ownPort) return { receiverRoutes: routes, components: [] };
  return {
    receiverRoutes: undefined,
    components: [
      createOpsServer({
        routes,
        port: config.ops.port!,
        logger,
        ...(options.host !== undefined ? { host: options.host } : {}),
      }),
    ],
  };
}
