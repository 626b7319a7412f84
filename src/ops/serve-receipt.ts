import type { Response } from 'express';

/**
 * The policy receipt HTML is served under. A receipt is the service's HTML, so it is
 * outside input: `sandbox` (without allow-scripts or allow-same-origin) runs it in an opaque
 * origin with scripts, forms and navigation of the parent off, and `default-src 'none'` keeps
 * it from loading anything; inline styles and data: images are what a receipt needs.
 */
export const RECEIPT_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** Sends receipt HTML with the sandboxing policy; used by the API and the dashboard frame. */
export function serveReceiptHtml(response: Response, html: string): void {
  response.setHeader('Content-Security-Policy', RECEIPT_CSP);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Cache-Control', 'no-store');
  response.setHeader('Referrer-Policy', 'no-referrer');
  response.type('text/html; charset=utf-8').send(html);
}
