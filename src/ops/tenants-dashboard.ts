import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { Logger } from '../logger.ts';
import { notFoundPage, page, tenantDashboardBase } from './dashboard-layout.ts';
import { createDashboardLogin, sessionOf } from './dashboard-login.ts';
import { html } from './html.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import type { DashboardSessions } from './dashboard-sessions.ts';
import { QUEUE_BOARD_PATH } from './create-ops-router.ts';
import { sendPage } from './send-page.ts';
import type { TenantsAccess } from './tenants-access.ts';

/** One tenant behind the dashboards' front. */
export interface DashboardTenant {
  readonly name: string;
  /** The tenant's dashboard (its pages at `/…`, the front strips the prefix), while it runs. */
  readonly dashboard: () => RequestHandler | undefined;
  /** Why the tenant is not running, when it is not. */
  readonly unavailable: () => string | undefined;
}

export interface TenantsDashboardOptions {
  /** Who may see which tenant. */
  readonly access: TenantsAccess;
  readonly tenants: readonly DashboardTenant[];
  /** Where a page that failed is logged. */
  readonly logger: Logger;
  /** Behind https: the cookie is `Secure` and `__Host-` prefixed. @defaultValue false */
  readonly secureCookie?: boolean;
  /** The process's dashboard sessions (every tenant's dashboard reads the same). */
  readonly sessions: DashboardSessions;
  /** The process's throttle of failed authentications. */
  readonly throttle: AuthThrottle;
  /** `Retry-After` of a tenant not running: when it is tried again. @defaultValue 30 */
  readonly retryAfterSeconds?: number;
}

/** The paths the dashboards' front answers; the process's front hands it these. */
export function isTenantsDashboardPath(path: string): boolean {
  return path === '/' || path === '/login' || path === '/tenants' || path.startsWith('/tenants/');
}

/**
 * The dashboards of a process serving several tenants (docs/tenants.md): one login at `/login`,
 * whose session may see the tenants of the token given, and each tenant's dashboard (with its
 * bull-board) under `/tenants/<tenant>/`. A session asking for a tenant it may not see gets the
 * page of a path that does not exist; no valid session at all, the login form (401), whether
 * the tenant exists or not.
 */
export function createTenantsDashboard(options: TenantsDashboardOptions): Express {
  const byName = new Map(options.tenants.map((tenant) => [tenant.name, tenant]));
  const landing = (seen: readonly string[]) => `${tenantDashboardBase(seen[0]!)}/`;
  const login = createDashboardLogin({
    seenBy: (token) => options.access.tenantsOfToken(token),
    landing,
    sessions: options.sessions,
    throttle: options.throttle,
    ...(options.secureCookie !== undefined ? { secureCookie: options.secureCookie } : {}),
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get(['/', '/tenants', '/tenants/'], login.requireSession('dashboard'), (_request, response) =>
    response.redirect(303, landing(sessionOf(response).seen)),
  );
  app.use(login.router);
  app.use(
    '/tenants/:tenant',
    login.requireSession((request) =>
      request.path.startsWith(QUEUE_BOARD_PATH) ? 'queues' : 'dashboard',
    ),
    (request: Request, response: Response, next: NextFunction) => {
      const name = String(request.params.tenant);
      // Another tenant's pages are pages that do not exist, for this session.
      if (!sessionOf(response).seen.includes(name)) return next();
      const tenant = byName.get(name);
      const dashboard = tenant?.dashboard();
      if (!tenant || !dashboard) {
        response.setHeader('Retry-After', String(options.retryAfterSeconds ?? 30));
        const body = html`<section>
          <p>
            Tenant ${name} is not running (${tenant?.unavailable() ?? 'starting'}); it is tried
            again every ${options.retryAfterSeconds ?? 30} s. Reload later.
          </p>
        </section>`;
        return sendPage(response, 503, page({ title: 'Not running', body }));
      }
      dashboard(request, response, next);
    },
  );
  app.use((_request, response) => sendPage(response, 404, notFoundPage()));
  const onError: ErrorRequestHandler = (error, _request, response, next) => {
    if (response.headersSent) return next(error);
    // A form too large or malformed: the body parser's own 4xx.
    const status = (error as { status?: unknown }).status;
    const refused = typeof status === 'number' && status >= 400 && status < 500;
    if (!refused) options.logger.error({ err: error }, 'dashboard request failed');
    const body = html`<section>
      <p>${refused ? 'This request was refused.' : 'Something went wrong; it was logged.'}</p>
    </section>`;
    sendPage(response, refused ? status : 500, page({ title: 'Error', body }));
  };
  app.use(onError);
  return app;
}
