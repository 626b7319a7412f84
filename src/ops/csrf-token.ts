import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * CSRF tokens of the dashboard's POST forms (ack, resolve, replay). No CSRF library is
 * installed, so this is the HMAC variant of the synchronizer token: the token is an HMAC of
 * the session cookie under a per-process secret. A cross-site page can neither read the
 * HttpOnly session cookie nor this process's secret, so it cannot forge the form field; the
 * SameSite=Strict cookie is the second line. Tokens change with the session (token rotation)
 * and with a restart (a reload of the page gives a new one).
 */
export class CsrfTokens {
  readonly #secret: Buffer;

  constructor(secret: Buffer) {
    this.#secret = secret;
  }

  /** The token to embed in the forms of this session. */
  tokenFor(session: string): string {
    return createHmac('sha256', this.#secret).update(session, 'utf8').digest('base64url');
  }

  /** True when `presented` is this session's token. */
  verify(session: string, presented: unknown): boolean {
    if (typeof presented !== 'string') return false;
    const expected = Buffer.from(this.tokenFor(session), 'utf8');
    const given = Buffer.from(presented, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
