import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Executor } from '../db/index.ts';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { resolveDiscrepancy } from '../ledger/index.ts';
import {
  ExpectationError,
  resolveBreak,
  resolveExpectation,
  type ExpectationContext,
} from '../expectations/index.ts';
import { disableEndpoint, enableEndpoint, EndpointError } from '../relay/index.ts';
import { replayInboxEvents } from '../replay/index.ts';
import { balancesPage } from './balances.page.ts';
import {
  bearerSessionKey,
  bearerToken,
  cookieValue,
  opsRefusals,
  type AdminTokens,
} from './ops-auth.ts';
import { sessionCookieName } from './dashboard-sessions.ts';
import { CsrfTokens } from './csrf-token.ts';
import {
  loginPage,
  page,
  tenantDashboardBase,
  type DashboardView,
  type PageAnswer,
} from './dashboard-layout.ts';
import { endpointsPage } from './endpoints.page.ts';
import { exportsPage } from './exports.page.ts';
import { expectationsPage } from './expectations.page.ts';
import { html } from './html.ts';
import { itemPage } from './item.page.ts';
import { expectationContextOf, type ResolvedOpsDependencies } from './ops-dependencies.ts';
import type { OpsReadContext } from './ops-queries.ts';
import { exportContentType } from './export-content-type.ts';
import { NOT_AVAILABLE, NOT_AVAILABLE_MESSAGES } from './ops-features.ts';
import { pipelinePage } from './pipeline.page.ts';
import { sendPage as send, sendTooManyLogins } from './send-page.ts';
import { serveReceiptHtml } from './serve-receipt.ts';
import { todayPage } from './today.page.ts';

/** A page of the dashboard: one file each (`*.page.ts`), all in the layout of dashboard-layout.ts. */
type DashboardPage = (view: DashboardView, request: Request) => Promise<PageAnswer>;

const here = dirname(fileURLToPath(import.meta.url));
const uplotDist = join(
  dirname(createRequire(import.meta.url).resolve('uplot/package.json')),
  'dist',
);

interface Session {
  readonly session: string;
  readonly csrf: string;
}

function sessionOf(response: Response): Session {
  return response.locals.opsSession as Session;
}

/** The dashboard pages, login, the POST actions and the local assets. */
export function createDashboardRouter(
  deps: ResolvedOpsDependencies,
  ctx: OpsReadContext,
  tokens: AdminTokens,
): {
  router: Router;
  requireSession: (surface: string) => express.RequestHandler;
  /** The CSRF token of the request's session (after requireSession). */
  csrfOf: (response: Response) => string;
} {
  const router = Router();
  const csrf = new CsrfTokens(randomBytes(32));
  // One cookie for the whole process: with several tenants, it opens each tenant's dashboard
  // whose tokens hold the token it was made from.
  const cookieFlags = `HttpOnly; SameSite=Strict; Path=/${deps.secureCookie ? '; Secure' : ''}`;
  const cookieName = sessionCookieName(deps.secureCookie === true);
  const { sessions, throttle } = deps;
  const tenant = deps.tenantDashboard;
  /** Where every link, form and redirect starts: `''`, or `/tenants/<tenant>`. */
  const base = tenant ? tenantDashboardBase(tenant.tenant) : '';

  /**
   * The session cookie, or for scripts an admin token as `Authorization: Bearer` (it stands for
   * the session of that token; a browser never sends the header by itself, so it adds no CSRF
   * risk, and the form actions still want the page's CSRF token); else 401 with the login form.
   */
  const requireSession =
    (surface: string) => async (request: Request, response: Response, next: NextFunction) => {
      try {
        if (!(await throttle.admits(request, response, surface, sendTooManyLogins))) return;
        const presented = bearerToken(request);
        if (presented !== undefined) {
          if (tokens.accepts(presented)) {
            const session = bearerSessionKey(presented);
            response.locals.opsSession = { session, csrf: csrf.tokenFor(session) };
            return next();
          }
          opsRefusals.inc({ surface, reason: 'wrong' });
          await throttle.failed(request, surface);
          return send(response, 401, loginPage());
        }
        const cookie = cookieValue(request, cookieName);
        if (tokens.accepts(sessions.tokenOf(cookie))) {
          response.locals.opsSession = { session: cookie!, csrf: csrf.tokenFor(cookie!) };
          return next();
        }
        opsRefusals.inc({ surface, reason: cookie ? 'wrong' : 'missing' });
        // Not counted as a failure: a session id (256 random bits) is not worth guessing, and a
        // cookie that expired or outlived a restart is no guess.
        send(response, 401, loginPage());
      } catch (error) {
        next(error);
      }
    };
  /** POST actions: a session and this session's CSRF token in the form. */
  const requireCsrf = (request: Request, response: Response, next: NextFunction) => {
    const body = request.body as Record<string, unknown> | undefined;
    if (csrf.verify(sessionOf(response).session, body?.csrf)) return next();
    opsRefusals.inc({ surface: 'dashboard', reason: 'csrf' });
    send(
      response,
      403,
      page({
        title: 'Refused',
        body: html`<section>
          <p>
            This form is stale or did not come from the dashboard. Reload the page and try again.
          </p>
        </section>`,
      }),
    );
  };
  const form = express.urlencoded({ extended: false, limit: '4kb' });
  const wrap =
    (handler: (request: Request, response: Response) => Promise<void>) =>
    async (request: Request, response: Response, next: NextFunction) => {
      try {
        await handler(request, response);
      } catch (error) {
        next(error);
      }
    };

  router.get('/assets/uPlot.iife.min.js', (_request, response) =>
    response.sendFile(join(uplotDist, 'uPlot.iife.min.js')),
  );
  router.get('/assets/uPlot.min.css', (_request, response) =>
    response.sendFile(join(uplotDist, 'uPlot.min.css')),
  );
  router.get('/assets/balance-chart.js', (_request, response) =>
    response.sendFile(join(here, 'balance-chart.js')),
  );

  router.get('/login', (_request, response) => send(response, 200, loginPage()));
  router.post(
    '/login',
    form,
    wrap(async (request, response) => {
      if (!(await throttle.admits(request, response, 'dashboard', sendTooManyLogins))) return;
      const token = (request.body as Record<string, unknown> | undefined)?.token;
      if (typeof token !== 'string' || !tokens.accepts(token.trim())) {
        const given = typeof token === 'string' && token !== '';
        opsRefusals.inc({ surface: 'dashboard', reason: given ? 'wrong' : 'missing' });
        await throttle.failed(request, 'dashboard');
        return send(response, 401, loginPage('Not accepted.'));
      }
      response.setHeader(
        'Set-Cookie',
        `${cookieName}=${sessions.open(token.trim())}; ${cookieFlags}`,
      );
      response.redirect(303, `${base}/`);
    }),
  );

  const authed = Router();
  authed.use(requireSession('dashboard'));
  authed.post('/logout', form, requireCsrf, (request, response) => {
    sessions.close(cookieValue(request, cookieName));
    response.setHeader('Set-Cookie', `${cookieName}=; ${cookieFlags}; Max-Age=0`);
    response.redirect(303, '/login');
  });

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
      wrap(async (request, response) => {
        const answer = await render(view(response), request);
        send(response, answer.status, answer.html);
      }),
    );
  }

  authed.get(
    '/receipts/:id',
    wrap(async (request, response) => {
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
    wrap(async (request, response) => {
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

  authed.post(
    '/actions/discrepancies/:id/resolve',
    form,
    requireCsrf,
    wrap(async (request, response) => {
      const id = Number(request.params.id);
      if (Number.isSafeInteger(id) && id > 0)
        await resolveDiscrepancy(deps.db, id, deps.now().toISOString());
      response.redirect(303, `${base}/`);
    }),
  );
  authed.post(
    '/actions/alerts/:id/ack',
    form,
    requireCsrf,
    wrap(async (request, response) => {
      const id = Number(request.params.id);
      if (Number.isSafeInteger(id) && id > 0)
        await deps.features.ackAlert(deps.db, id, 'dashboard');
      response.redirect(303, `${base}/`);
    }),
  );
  authed.post(
    '/actions/replay',
    form,
    requireCsrf,
    wrap(async (request, response) => {
      const body = request.body as Record<string, unknown>;
      const inboxId = Number(body.inboxId);
      if (deps.queues && Number.isSafeInteger(inboxId) && inboxId > 0) {
        await replayInboxEvents({ db: deps.db, queues: deps.queues }, { inboxId });
      }
      const back = typeof body.back === 'string' ? `/items/${encodeURIComponent(body.back)}` : '/';
      response.redirect(303, `${base}${back}`);
    }),
  );
  authed.post(
    '/actions/endpoints/:id/:action',
    form,
    requireCsrf,
    wrap(async (request, response) => {
      const id = String(request.params.id);
      const action = request.params.action === 'enable' ? enableEndpoint : disableEndpoint;
      if (request.params.action === 'enable' || request.params.action === 'disable') {
        try {
          await action(deps.db, id, deps.now());
        } catch (error) {
          // An endpoint deleted meanwhile: the page shows what is left.
          if (!(error instanceof EndpointError)) throw error;
        }
      }
      response.redirect(303, `${base}/endpoints`);
    }),
  );
  /**
   * The resolve forms of the Expectations page: reason required, `by` optional (`dashboard`),
   * back to the page with its filters; a refusal of the domain is a page that says why.
   */
  const expectationAction = (
    resolve: (
      trx: Executor,
      ctx: ExpectationContext,
      id: string,
      reason: string,
      by: string,
    ) => Promise<unknown>,
  ) =>
    wrap(async (request: Request, response: Response) => {
      const body = request.body as Record<string, unknown>;
      const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
      const ctx = expectationContextOf(deps);
      try {
        await deps.db
          .transaction()
          .execute((trx) =>
            resolve(
              trx,
              ctx,
              String(request.params.id),
              text('reason'),
              text('by').trim() || 'dashboard',
            ),
          );
      } catch (error) {
        if (!(error instanceof ExpectationError)) throw error;
        const status = error.code === 'not_found' ? 404 : 400;
        const message = error.message;
        return send(
          response,
          status,
          page({
            title: 'Not resolved',
            chrome: view(response),
            body: html`<section>
              <p class="verdict verdict-breaks">${message}</p>
              <p><a href="${base}/expectations">Back to Expectations</a></p>
            </section>`,
          }),
        );
      }
      const back = text('back');
      response.redirect(
        303,
        `${base}${/^\/expectations(\?[^/\\]*)?$/.test(back) ? back : '/expectations'}`,
      );
    });
  authed.post(
    '/actions/expectations/:id/resolve',
    form,
    requireCsrf,
    expectationAction((trx, ctx, id, reason, by) =>
      resolveExpectation(trx, ctx, id, { reason, by, source: 'dashboard' }),
    ),
  );
  authed.post(
    '/actions/expectation-breaks/:id/resolve',
    form,
    requireCsrf,
    expectationAction((trx, ctx, id, reason, by) => {
      const breakId = Number(id);
      if (!Number.isSafeInteger(breakId) || breakId <= 0) {
        throw new ExpectationError('not_found', `no break ${id}`);
      }
      return resolveBreak(trx, ctx, breakId, { reason, by });
    }),
  );
  router.use(authed);
  return { router, requireSession, csrfOf: (response) => sessionOf(response).csrf };
}
