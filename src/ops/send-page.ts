import type { Response } from 'express';
import { loginPage } from './dashboard-layout.ts';

/** No inline script may run on a dashboard page: escaping has a second line behind it. */
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/**
 * bull-board's: the same, but its page sets `<base href>` (its assets are linked relative to
 * it), so the base may be this origin. Its web font from Google is left out (`style-src 'self'`).
 */
export const BOARD_CSP = PAGE_CSP.replace("base-uri 'none'", "base-uri 'self'");

/** The headers every dashboard page carries (bull-board's pages too, with {@link BOARD_CSP}). */
export function setPageHeaders(response: Response, csp: string = PAGE_CSP): void {
  response.setHeader('Content-Security-Policy', csp);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Cache-Control', 'no-store');
  response.setHeader('Referrer-Policy', 'no-referrer');
}

/** Answers a dashboard page with its status and the headers every page carries. */
export function sendPage(response: Response, status: number, body: string): void {
  setPageHeaders(response);
  response.status(status).type('text/html; charset=utf-8').send(body);
}

/**
 * The dashboards' answer to a client address past its failed logins (AuthThrottle sets
 * `Retry-After`): the login page, saying when to try again. One wording for every dashboard.
 */
export function sendTooManyLogins(response: Response): void {
  sendPage(
    response,
    429,
    loginPage('Too many failed attempts from your address: wait a minute and try again.'),
  );
}
