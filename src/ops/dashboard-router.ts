import { createRequire } from 'node:module';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Router,
  type ErrorRequestHandler,
  type RequestHandler,
  type Request,
  type Response,
} from 'express';
import { asyncHandler } from './async-handler.ts';
import { balancesPage } from './balances.page.ts';
import type { AdminTokens } from './ops-auth.ts';
import { createDashboardActions } from './dashboard-actions.ts';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseUnavailableAnswer,
} from './database-unavailable-answer.ts';
import { reasonOf } from '../error-reason.ts';
import {
  page,
  tenantDashboardBase,
  type DashboardView,
  type PageAnswer,
} from './dashboard-layout.ts';
import { createDashboardLogin, sessionOf } from './dashboard-login.ts';
import { endpointsPage } from './endpoints.page.ts';
import { exportsPage } from './exports.page.ts';
import { expectationsPage } from './expectations.page.ts';
import { html } from './html.ts';
import { itemPage } from './item.page.ts';
import type { ResolvedOpsDependencies } from './ops-dependencies.ts';
import type { OpsReadContext } from './ops-queries.ts';
import { exportContentType } from './export-content-type.ts';
import { NOT_AVAILABLE, NOT_AVAILABLE_MESSAGES } from './ops-features.ts';
import { pipelinePage } from './pipeline.page.ts';
import { sendPage as send } from './send-page.ts';
import { serveReceiptHtml } from './serve-receipt.ts';
import { todayPage } from './today.page.ts';

/** A page of the dashboard: one file each (`*.page.ts`), all in the layout of dashboard-layout.ts. */
type DashboardPage = (view: DashboardView, request: Request) => Promise<PageAnswer>;

const here = dirname(fileURLToPath(import.meta.url));
const uplotDist = join(
  dirname(createRequire(import.meta.url).resolve('uplot/package.json')),
  'dist',
);

/**
 * The dashboard: its pages (one file each), the local assets, and behind the session of
 * dashboard-login.ts the logout, receipts, export downloads and the forms of dashboard-actions.ts.
 */
export function createDashboardRouter(
  deps: ResolvedOpsDependencies,
  ctx: OpsReadContext,
  tokens: AdminTokens,
): {
  router: Router;
  requireSession: (surface: string) => RequestHandler;
  /** The CSRF token of the request's session (after requireSession). */
  csrfOf: (response: Response) => string;
} {
  const router = Router();
  const tenant = deps.tenantDashboard;
  /** Where every link, form and redirect starts: `''`, or `/tenants/<tenant>`. */
  const base = tenant ? tenantDashboardBase(tenant.tenant) : '';
  const login = createDashboardLogin({
    // The one set of books (this tenant's): seen by its admin tokens, and by no other token.
    seenBy: (token) => (tokens.accepts(token) ? [tenant?.tenant ?? 'books'] : []),
    landing: () => `${base}/`,
    sessions: deps.sessions,
    throttle: deps.throttle,
    ...(deps.secureCookie !== undefined ? { secureCookie: deps.secureCookie } : {}),
  });

  router.get('/assets/uPlot.iife.min.js', (_request, response) =>
    response.sendFile(join(uplotDist, 'uPlot.iife.min.js')),
  );
  router.get('/assets/uPlot.min.css', (_request, response) =>
    response.sendFile(join(uplotDist, 'uPlot.min.css')),
  );
  router.get('/assets/balance-chart.js', (_request, response) =>
    response.sendFile(join(here, 'balance-chart.js')),
  );
  router.use(login.router);

  const authed = Router();
  authed.use(login.requireSession('dashboard'));
  authed.use(login.logout);

  const view = (response: Response): DashboardView => {
    const { session, csrf: token } = sessionOf(response);
    return {
      deps,
      ctx,
      csrf: token,
      base,
      switcher: tenant && { current: tenant.tenant, tenants: tenant.tenantsOf(session) },
    };
  };
  const pages: readonly (readonly [string, DashboardPage])[] = [
    ['/', todayPage],
    ['/items/:id', itemPage],
    ['/balances', balancesPage],
    ['/pipeline', pipelinePage],
    ['/exports', exportsPage],
    ['/endpoints', endpointsPage],
    ['/expectations', expectationsPage],
  ];
  for (const [path, render] of pages) {
    authed.get(
      path,
      asyncHandler(async (request, response) => {
        const answer = await render(view(response), request);
        send(response, answer.status, answer.html);
      }),
    );
  }

  authed.get(
    '/receipts/:id',
    asyncHandler(async (request, response) => {
      const html = await deps.features.receiptHtml(deps.db, String(request.params.id));
      if (html === NOT_AVAILABLE) {
        return serveReceiptHtml(
          response,
          `<p style="color:#6b7280;font-style:italic">Not available: ${NOT_AVAILABLE_MESSAGES.receipts}</p>`,
        );
      }
      serveReceiptHtml(response, html ?? '<p style="color:#6b7280">No receipt for this item.</p>');
    }),
  );

  authed.get(
    '/exports/:id/download',
    asyncHandler(async (request, response) => {
      const file = await deps.features.openExport(deps.db, String(request.params.id));
      if (file === NOT_AVAILABLE || !file) {
        const body = html`<section><p>No export file ${String(request.params.id)}.</p></section>`;
        return send(response, 404, page({ title: 'Not found', chrome: view(response), body }));
      }
      response.setHeader('Content-Type', exportContentType(file.view.format));
      response.attachment(file.view.id);
      await pipeline(file.stream, response);
    }),
  );

  authed.use(createDashboardActions(deps, { base, view, requireCsrf: login.requireCsrf }));
  router.use(authed);
  // A page whose database is down or refuses writes: 503 with Retry-After, as for a paused
  // tenant; any other failure goes on to the error handler of the process (a 500).
  const onDatabaseUnavailable: ErrorRequestHandler = (error, _request, response, next) => {
    const answer = databaseUnavailableAnswer(error, tenant?.tenant);
    if (!answer || response.headersSent) return next(error);
    deps.logger.warn(
      { reason: reasonOf(error) },
      'dashboard request answered 503: the database is unavailable',
    );
    response.setHeader('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
    const body = html`<section>
      <p>
        ${tenant ? `Tenant ${tenant.tenant}` : 'The dashboard'} cannot use its database right now
        (${reasonOf(error)}). Nothing was changed. Reload in a few seconds.
      </p>
    </section>`;
    send(response, 503, page({ title: 'Database unavailable', body }));
  };
  router.use(onDatabaseUnavailable);
  return {
    router,
    requireSession: login.requireSession,
    csrfOf: (response) => sessionOf(response).csrf,
  };
}
