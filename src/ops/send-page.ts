import type { Response } from 'express';

/** No inline script may run on a dashboard page: escaping has a second line behind it. */
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/** The headers every dashboard page carries (bull-board's pages too). */
export function setPageHeaders(response: Response): void {
  response.setHeader('Content-Security-Policy', PAGE_CSP);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Cache-Control', 'no-store');
  response.setHeader('Referrer-Policy', 'no-referrer');
}

/** Answers a dashboard page with its status and the headers every page carries. */
export function sendPage(response: Response, status: number, body: string): void {
  setPageHeaders(response);
  response.status(status).type('text/html; charset=utf-8').send(body);
}
