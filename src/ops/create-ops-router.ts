import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { createApiRouter } from './api-router.ts';
import { tenantDashboardBase } from './dashboard-layout.ts';
import { createDashboardRouter } from './dashboard-router.ts';
import { AdminTokens, bearerToken, opsRefusals } from './ops-auth.ts';
import {
  STRICT_RELAY_RULES,
  type OpsDependencies,
  type ResolvedOpsDependencies,
} from './ops-dependencies.ts';
import { sendOpsError } from './ops-errors.ts';
import { opsFeatures } from './ops-features.ts';
import { OPS_API_BASE } from './ops-routes.ts';

export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * The ops surfaces as one Express router: `/api/v1` (bearer token), the dashboard at `/`
 * and bull-board at `/admin/queues` (session cookie from the login form). Mount it after
 * the receiver's own routes. Throws when no token is given: with none, the caller mounts
 * nothing (see opsStartupLine).
 */
export function createOpsRouter(options: OpsDependencies): Router {
  const { api, dashboard } = createOpsRouters(options);
  return Router().use(api, dashboard);
}

/** The ops surfaces as two routers, for a process serving several tenants to mount apart. */
export interface OpsRouters {
  /** `/api/v1/…`, behind the bearer token. */
  readonly api: Router;
  /** The dashboard's pages, its assets and bull-board at `/admin/queues`, behind the session. */
  readonly dashboard: Router;
}

/** {@link createOpsRouter}'s two parts: the API, and the dashboard with bull-board. */
export function createOpsRouters(options: OpsDependencies): OpsRouters {
  const deps: ResolvedOpsDependencies = {
    ...options,
    relay: options.relay ?? STRICT_RELAY_RULES,
    features:
      options.features ??
      opsFeatures({
        ...(options.alerts ? { alerts: options.alerts } : {}),
        ...(options.receiptsDir !== undefined ? { receiptsDir: options.receiptsDir } : {}),
        ...(options.exportsDir !== undefined
          ? { exports: { dir: options.exportsDir, environment: options.environment } }
          : {}),
      }),
  };
  const tokens = new AdminTokens(deps.tokens);
  const ctx = {
    db: deps.db,
    environment: deps.environment,
    timeZone: deps.timeZone,
    logger: deps.logger,
    now: deps.now,
    ...(deps.expectations ? { expectationBreakVerdict: deps.expectations.breakVerdict } : {}),
  };
  const api = Router();
  api.use(OPS_API_BASE, (request: Request, response: Response, next: NextFunction) => {
    const presented = bearerToken(request);
    if (tokens.accepts(presented)) return next();
    opsRefusals.inc({ surface: 'api', reason: presented ? 'wrong' : 'missing' });
    response.setHeader('WWW-Authenticate', 'Bearer realm="paysync"');
    sendOpsError(response, 401, 'unauthorized', 'authentication required');
  });
  api.use(OPS_API_BASE, createApiRouter(deps, ctx));

  const router = Router();
  const dashboard = createDashboardRouter(deps, ctx, tokens);
  if (deps.queues) {
    const tenant = deps.tenantDashboard?.tenant;
    const board = new ExpressAdapter();
    // The board's page links its assets and API under this path, as the browser sees it.
    board.setBasePath(
      `${tenant === undefined ? '' : tenantDashboardBase(tenant)}${QUEUE_BOARD_PATH}`,
    );
    createBullBoard({
      // This tenant's queues only: its own connection and prefix.
      queues: (['ingest', 'sync', 'followUp', 'scheduled'] as const).map(
        (name) => new BullMQAdapter(deps.queues![name]),
      ),
      serverAdapter: board,
      ...(tenant === undefined
        ? {}
        : { options: { uiConfig: { boardTitle: `paysync · ${tenant}` } } }),
    });
    router.use(QUEUE_BOARD_PATH, dashboard.requireSession('queues'), board.getRouter() as Router);
  }
  router.use(dashboard.router);
  return { api, dashboard: router };
}

/** The one start-up line that says whether the ops surfaces are on, and where. */
export function opsStartupLine(tokens: readonly string[], url: string | undefined): string {
  return tokens.length === 0
    ? 'ops API and dashboard are off: set PAYSYNC_ADMIN_TOKEN to turn them on'
    : `ops API and dashboard on at ${url ?? 'the receiver port'} (${tokens.length} admin token${tokens.length === 1 ? '' : 's'})`;
}
