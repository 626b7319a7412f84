import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { Logger } from '../logger.ts';
import { loginPage, notFoundPage, page, tenantDashboardBase } from './dashboard-layout.ts';
import { html } from './html.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import { sessionCookieName, type DashboardSessions } from './dashboard-sessions.ts';
import { bearerToken, cookieValue, opsRefusals } from './ops-auth.ts';
import { QUEUE_BOARD_PATH } from './create-ops-router.ts';
import { sendPage, sendTooManyLogins } from './send-page.ts';
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
  const { access } = options;
  const byName = new Map(options.tenants.map((tenant) => [tenant.name, tenant]));
  const { sessions, throttle } = options;
  const cookieFlags = `HttpOnly; SameSite=Strict; Path=/${options.secureCookie ? '; Secure' : ''}`;
  const cookieName = sessionCookieName(options.secureCookie === true);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  /**
   * The tenants the request may see: by its `Authorization: Bearer` token when it has one (the
   * header decides alone, as on one tenant's dashboard), else by its session cookie.
   */
  const credentialsOf = (request: Request) => {
    const bearer = bearerToken(request);
    if (bearer !== undefined) return { tenants: access.tenantsOfToken(bearer), presented: true };
    const cookie = cookieValue(request, cookieName);
    return {
      tenants: access.tenantsOfToken(sessions.tokenOf(cookie)),
      presented: cookie !== undefined,
    };
  };
  const refuse = async (
    request: Request,
    response: Response,
    surface: string,
    presented: boolean,
  ) => {
    opsRefusals.inc({ surface, reason: presented ? 'wrong' : 'missing' });
    // A wrong bearer token is a guess; a session cookie that ended is not (see dashboard-router).
    if (presented && bearerToken(request) !== undefined) await throttle.failed(request, surface);
    sendPage(response, 401, loginPage());
  };
  /** Express 4 does not catch a rejected handler: hand the error on. */
  const wrap =
    (handler: (request: Request, response: Response, next: NextFunction) => Promise<void>) =>
    (request: Request, response: Response, next: NextFunction) => {
      handler(request, response, next).catch(next);
    };
  const home = wrap(async (request, response) => {
    if (!(await throttle.admits(request, response, 'dashboard', sendTooManyLogins))) return;
    const { tenants, presented } = credentialsOf(request);
    const [first] = tenants;
    if (first === undefined) return refuse(request, response, 'dashboard', presented);
    response.redirect(303, `${tenantDashboardBase(first)}/`);
  });

  app.get(['/', '/tenants', '/tenants/'], home);
  app.get('/login', (_request, response) => sendPage(response, 200, loginPage()));
  app.post(
    '/login',
    express.urlencoded({ extended: false, limit: '4kb' }),
    wrap(async (request, response) => {
      if (!(await throttle.admits(request, response, 'dashboard', sendTooManyLogins))) return;
      const token = (request.body as Record<string, unknown> | undefined)?.token;
      const given = typeof token === 'string' ? token.trim() : '';
      const [first] = access.tenantsOfToken(given);
      if (first === undefined) {
        opsRefusals.inc({ surface: 'dashboard', reason: given ? 'wrong' : 'missing' });
        await throttle.failed(request, 'dashboard');
        return sendPage(response, 401, loginPage('Not accepted.'));
      }
      response.setHeader('Set-Cookie', `${cookieName}=${sessions.open(given)}; ${cookieFlags}`);
      response.redirect(303, `${tenantDashboardBase(first)}/`);
    }),
  );
  app.use(
    '/tenants/:tenant',
    wrap(async (request, response, next) => {
      const surface = request.path.startsWith(QUEUE_BOARD_PATH) ? 'queues' : 'dashboard';
      if (!(await throttle.admits(request, response, surface, sendTooManyLogins))) return;
      const { tenants, presented } = credentialsOf(request);
      if (tenants.length === 0) return refuse(request, response, surface, presented);
      const name = String(request.params.tenant);
      // Another tenant's pages are pages that do not exist, for this session.
      if (!tenants.includes(name)) return next();
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
    }),
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
