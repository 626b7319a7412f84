import { createBullBoard } from '@bull-board/api';
import { DEFAULT_BALANCE_CRON, DEFAULT_VERDICT_CRON } from '../config/index.ts';
import { sweepCoverage } from '../polling/index.ts';
import { pendingSlaOf } from '../reports/index.ts';
import { QUEUE_KEYS } from '../queues/enqueue.ts';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Router, type Express, type NextFunction, type Request, type Response } from 'express';
import { createApiRouter } from './api-router.ts';
import { page, tenantDashboardBase } from './dashboard-layout.ts';
import { createDashboardRouter } from './dashboard-router.ts';
import { AuthThrottle } from './auth-throttle.ts';
import { DashboardSessions } from './dashboard-sessions.ts';
import { AdminTokens, bearerToken, opsRefusals } from './ops-auth.ts';
import {
  STRICT_RELAY_RULES,
  type OpsDependencies,
  type ResolvedOpsDependencies,
} from './ops-dependencies.ts';
import { sendOpsError, sendTooManyFailures } from './ops-errors.ts';
import { opsFeatures } from './ops-features.ts';
import { OPS_API_BASE } from './ops-routes.ts';
import type { OpsReadContext } from './ops-queries.ts';
import { BOARD_CSP, sendPage, setPageHeaders } from './send-page.ts';
import { html } from './html.ts';

export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * The ops surfaces as one Express router: `/api/v1` (bearer token), the dashboard at `/`
 * and bull-board at `/admin/queues` (session cookie from the login form), for the ops port
 * (createOpsServer). Throws when no token is given: with none, the caller mounts nothing (see
 * opsStartupLine).
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
    sessions: options.sessions ?? new DashboardSessions({ now: options.now }),
    throttle: options.throttle ?? new AuthThrottle(options.logger),
  };
  const { throttle } = deps;
  const tokens = new AdminTokens(deps.tokens);
  const ctx: OpsReadContext = {
    db: deps.db,
    environment: deps.environment,
    timeZone: deps.timeZone,
    logger: deps.logger,
    now: deps.now,
    // A day is judged here as `paysync report` and the verdicts task judge it.
    verdictRules: {
      ...(deps.janitor ? { sla: pendingSlaOf(deps.janitor.stuckAfterMs) } : {}),
      coverage: sweepCoverage(deps.db, deps.environment),
      ...(deps.expectations ? { expectationBreakVerdict: deps.expectations.breakVerdict } : {}),
    },
    verdictSchedule: deps.balances ?? {
      cron: DEFAULT_BALANCE_CRON,
      verdictCron: DEFAULT_VERDICT_CRON,
    },
  };
  const api = Router();
  api.use(OPS_API_BASE, async (request: Request, response: Response, next: NextFunction) => {
    try {
      if (!(await throttle.admits(request, response, 'api', sendTooManyFailures))) return;
      const presented = bearerToken(request);
      if (tokens.accepts(presented)) return next();
      opsRefusals.inc({ surface: 'api', reason: presented ? 'wrong' : 'missing' });
      if (presented) await throttle.failed(request, 'api');
      response.setHeader('WWW-Authenticate', 'Bearer realm="paysync"');
      sendOpsError(response, 401, 'unauthorized', 'authentication required');
    } catch (error) {
      next(error);
    }
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
    const readOnlyMode = deps.queueBoardActions !== true;
    // bull-board answers from an Express app of its own, which would name itself otherwise.
    const boardApp = board.getRouter() as Express;
    boardApp.disable('x-powered-by');
    createBullBoard({
      // This tenant's queues only: its own connection and prefix. Read-only unless
      // PAYSYNC_QUEUE_BOARD_ACTIONS opens its actions.
      queues: QUEUE_KEYS.map((name) => new BullMQAdapter(deps.queues![name], { readOnlyMode })),
      serverAdapter: board,
      ...(tenant === undefined
        ? {}
        : { options: { uiConfig: { boardTitle: `paysync · ${tenant}` } } }),
    });
    router.use(
      QUEUE_BOARD_PATH,
      (_request: Request, response: Response, next: NextFunction) => {
        // The dashboard's headers on every answer of the board, pages and API alike.
        setPageHeaders(response, BOARD_CSP);
        response.removeHeader('X-Powered-By');
        next();
      },
      dashboard.requireSession('queues'),
      (request: Request, response: Response, next: NextFunction) => {
        if (request.method === 'GET' || request.method === 'HEAD') return next();
        // An action: from the board's own page (the browser says same-origin, which no page of
        // another site can make it say), or carrying the session's CSRF token in a header.
        const sameOrigin = request.headers['sec-fetch-site'] === 'same-origin';
        const csrfHeader = request.headers['x-csrf-token'];
        if (sameOrigin || csrfHeader === dashboard.csrfOf(response)) return next();
        opsRefusals.inc({ surface: 'queues', reason: 'csrf' });
        sendPage(
          response,
          403,
          page({
            title: 'Refused',
            body: html`<section>
              <p>This action did not come from the queue board. Reload the board and try again.</p>
            </section>`,
          }),
        );
      },
      boardApp,
    );
  }
  router.use(dashboard.router);
  return { api, dashboard: router };
}

/**
 * The one start-up line of the ops port: where it is, who can reach it, what it serves, and
 * that the receiver's port no longer serves metrics (a Prometheus scraping it there learns
 * where to go).
 */
export function opsStartupLine(options: {
  readonly tokens: readonly string[];
  /** The ops port's address, as a client on this machine reaches it. */
  readonly url: string;
  readonly host: string;
  /** Open beyond loopback (PAYSYNC_OPS_HOST): /metrics wants a token. */
  readonly public: boolean;
  readonly receiverPort: number | undefined;
}): string {
  const { tokens } = options;
  const surfaces =
    tokens.length === 0
      ? 'ops API and dashboard are off: set PAYSYNC_ADMIN_TOKEN to turn them on'
      : `ops API and dashboard on (${tokens.length} admin token${tokens.length === 1 ? '' : 's'})`;
  const reach = options.public
    ? `open beyond loopback (PAYSYNC_OPS_HOST=${options.host}): /metrics wants the admin token or PAYSYNC_METRICS_TOKEN as a bearer token`
    : `loopback only (PAYSYNC_OPS_HOST=${options.host}); to scrape from another host set PAYSYNC_OPS_HOST and PAYSYNC_METRICS_TOKEN`;
  const moved =
    options.receiverPort === undefined
      ? ''
      : `; the receiver port ${options.receiverPort} serves webhooks and health only (its /metrics moved here)`;
  return `ops port ${options.url}: /metrics, /healthz, /readyz, ${surfaces}; ${reach}${moved}`;
}
