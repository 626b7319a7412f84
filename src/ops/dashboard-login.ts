import { randomBytes } from 'node:crypto';
import express, { Router, type RequestHandler, type Request, type Response } from 'express';
import { asyncHandler } from './async-handler.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import { CsrfTokens } from './csrf-token.ts';
import { loginPage, page } from './dashboard-layout.ts';
import type { DashboardSessions } from './dashboard-sessions.ts';
import { html } from './html.ts';
import { bearerSessionKey, bearerToken, cookieValue, opsRefusals } from './ops-auth.ts';
import { sendPage, sendTooManyLogins } from './send-page.ts';

/** The session cookie's name: `__Host-` prefixed when it is `Secure` (behind https). */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-paysync_ops' : 'paysync_ops';
}

/** The dashboard's forms (login, logout, the actions): small, url-encoded. */
export const dashboardForm = express.urlencoded({ extended: false, limit: '4kb' });

export interface DashboardLoginOptions {
  /**
   * The tenants a token may see, in their order: a process's tenants whose tokens hold it, or
   * the one set of books of a dashboard (by whatever name). None refuses the token.
   */
  readonly seenBy: (token: string | undefined) => readonly string[];
  /** Where an accepted login goes (`…/`), from the tenants its token sees (never none). */
  readonly landing: (seen: readonly string[]) => string;
  /** The process's dashboard sessions (one for every dashboard of the process). */
  readonly sessions: DashboardSessions;
  /** The process's throttle of failed authentications. */
  readonly throttle: AuthThrottle;
  /** Behind https: the cookie is `Secure` and `__Host-` prefixed. @defaultValue false */
  readonly secureCookie?: boolean;
}

/** What {@link DashboardLogin.requireSession} leaves for the handlers after it. */
export interface DashboardSession {
  /** The session's id: its cookie's value, or for a bearer token its key (bearerSessionKey). */
  readonly session: string;
  /** The CSRF token of the session's forms. */
  readonly csrf: string;
  /** The tenants the session may see (never none). */
  readonly seen: readonly string[];
}

/** The one login of the dashboards: see {@link createDashboardLogin}. */
export interface DashboardLogin {
  /** `GET /login` (the form) and `POST /login` (sets the session cookie, 303 to the landing). */
  readonly router: Router;
  /**
   * The session cookie, or for scripts an admin token as `Authorization: Bearer`; else 401 with
   * the login form. `surface` names the refusals (`dashboard`, `queues`), or says it per request.
   */
  readonly requireSession: (surface: string | ((request: Request) => string)) => RequestHandler;
  /** POST forms: this session's CSRF token in the form field `csrf`, else 403. */
  readonly requireCsrf: RequestHandler;
  /** `POST /logout`, to mount behind requireSession: ends the session, clears the cookie. */
  readonly logout: Router;
}

/** The session {@link DashboardLogin.requireSession} admitted the request with. */
export function sessionOf(response: Response): DashboardSession {
  return response.locals.opsSession as DashboardSession;
}

/**
 * Login, session check, logout and the session cookie of every dashboard: the one set of books
 * at `/` (dashboard-router), one tenant's under `/tenants/<tenant>`, and the front of a process
 * serving several (tenants-dashboard). One cookie for the whole process: with several tenants,
 * it opens each tenant whose tokens hold the token it was made from. Failed tokens count
 * towards the throttle (429 + `Retry-After` past the limit); a cookie that ended does not.
 */
export function createDashboardLogin(options: DashboardLoginOptions): DashboardLogin {
  const { sessions, throttle, seenBy } = options;
  const secure = options.secureCookie === true;
  const cookieFlags = `HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;
  const cookieName = sessionCookieName(secure);
  const csrf = new CsrfTokens(randomBytes(32));

  /**
   * A browser never sends the `Authorization` header by itself, so a bearer token adds no CSRF
   * risk (the forms still want the page's CSRF token); when it is present it decides alone.
   */
  const requireSession = (surface: string | ((request: Request) => string)): RequestHandler =>
    asyncHandler(async (request, response, next) => {
      const surfaceOf = typeof surface === 'string' ? surface : surface(request);
      if (!(await throttle.admits(request, response, surfaceOf, sendTooManyLogins))) return;
      const presented = bearerToken(request);
      if (presented !== undefined) {
        const seen = seenBy(presented);
        if (seen.length > 0) return admit(response, bearerSessionKey(presented), seen, next);
        opsRefusals.inc({ surface: surfaceOf, reason: 'wrong' });
        await throttle.failed(request, surfaceOf);
        return sendPage(response, 401, loginPage());
      }
      const cookie = cookieValue(request, cookieName);
      const seen = seenBy(sessions.tokenOf(cookie));
      if (cookie && seen.length > 0) return admit(response, cookie, seen, next);
      opsRefusals.inc({ surface: surfaceOf, reason: cookie ? 'wrong' : 'missing' });
      // Not counted as a failure: a session id (256 random bits) is not worth guessing, and a
      // cookie that expired or outlived a restart is no guess.
      sendPage(response, 401, loginPage());
    });
  const admit = (
    response: Response,
    session: string,
    seen: readonly string[],
    next: () => void,
  ) => {
    const admitted: DashboardSession = { session, csrf: csrf.tokenFor(session), seen };
    response.locals.opsSession = admitted;
    next();
  };

  const requireCsrf: RequestHandler = (request, response, next) => {
    const body = request.body as Record<string, unknown> | undefined;
    if (csrf.verify(sessionOf(response).session, body?.csrf)) return next();
    opsRefusals.inc({ surface: 'dashboard', reason: 'csrf' });
    sendPage(
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

  const router = Router();
  router.get('/login', (_request, response) => sendPage(response, 200, loginPage()));
  router.post(
    '/login',
    dashboardForm,
    asyncHandler(async (request, response) => {
      if (!(await throttle.admits(request, response, 'dashboard', sendTooManyLogins))) return;
      const token = (request.body as Record<string, unknown> | undefined)?.token;
      const given = typeof token === 'string' ? token.trim() : '';
      const seen = given === '' ? [] : seenBy(given);
      if (seen.length === 0) {
        opsRefusals.inc({ surface: 'dashboard', reason: given ? 'wrong' : 'missing' });
        await throttle.failed(request, 'dashboard');
        return sendPage(response, 401, loginPage('Not accepted.'));
      }
      response.setHeader('Set-Cookie', `${cookieName}=${sessions.open(given)}; ${cookieFlags}`);
      response.redirect(303, options.landing(seen));
    }),
  );

  const logout = Router();
  logout.post('/logout', dashboardForm, requireCsrf, (request, response) => {
    sessions.close(cookieValue(request, cookieName));
    response.setHeader('Set-Cookie', `${cookieName}=; ${cookieFlags}; Max-Age=0`);
    response.redirect(303, '/login');
  });
  return { router, requireSession, requireCsrf, logout };
}
