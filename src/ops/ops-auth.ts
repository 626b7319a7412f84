import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { Counter } from 'prom-client';
import { metricsRegistry } from '../metrics/index.ts';

/** Refused ops requests, by surface (`api`, `dashboard`, `queues`) and reason. */
export const opsRefusals =
  (metricsRegistry.getSingleMetric('paysync_ops_refused_total') as Counter<'surface' | 'reason'>) ??
  new Counter({
    name: 'paysync_ops_refused_total',
    help: 'Ops API and dashboard requests refused with 401 or 403, by surface and reason',
    labelNames: ['surface', 'reason'],
    registers: [metricsRegistry],
  });

// Digests have one length, so comparing them in constant time leaks nothing, not even the
// length of the token.
function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Checks presented tokens against the configured admin tokens, in constant time, trying every
 * token (rotation) without stopping at the first match. Sessions are DashboardSessions'.
 */
export class AdminTokens {
  readonly #digests: readonly Buffer[];

  constructor(tokens: readonly string[]) {
    if (tokens.length === 0) throw new Error('AdminTokens needs at least one token');
    this.#digests = tokens.map(digest);
  }

  /** True when `presented` is one of the tokens. */
  accepts(presented: string | undefined): boolean {
    if (!presented) return false;
    const given = digest(presented);
    let match = false;
    for (const expected of this.#digests) match = timingSafeEqual(given, expected) || match;
    return match;
  }
}

/**
 * What a request authenticated by its `Authorization: Bearer` token stands in place of a
 * session id (the CSRF token is derived from it): a digest, never the token.
 */
export function bearerSessionKey(token: string): string {
  return `bearer:${digest(token).toString('base64url')}`;
}

/** The `Bearer` token of a request, if any. */
export function bearerToken(request: Request): string | undefined {
  return bearerOf(request.headers.authorization);
}

/** The token of an `Authorization: Bearer …` header, if it is one. */
export function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** One cookie's value from the Cookie header (no cookie-parser dependency for one cookie). */
export function cookieValue(request: Request, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
