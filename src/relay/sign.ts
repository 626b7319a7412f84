import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/): `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256>` of
 * `id.timestamp.body`, one per valid secret, space-separated), so any of its verification
 * libraries works on the merchant's side.
 */

const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` and 32 random bytes in base64. */
export function newEndpointSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** True when `secret` has the shape {@link newEndpointSecret} makes. */
export function isEndpointSecret(secret: string): boolean {
  if (!secret.startsWith(SECRET_PREFIX)) return false;
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return key.length >= 24;
}

export interface SignedHeaders {
  readonly 'content-type': 'application/json';
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * The headers of one signed POST of `body`. `secrets` are the endpoint's valid secrets, the
 * current one first (after a rotation, the previous one too until it expires): each signs,
 * and the receiver accepts any one that verifies.
 */
export function signedHeaders(
  secrets: readonly string[],
  messageId: string,
  at: Date,
  body: string,
): SignedHeaders {
  if (secrets.length === 0) throw new Error('an endpoint needs at least one secret to sign with');
  const signatures = secrets.map((secret) => new Webhook(secret).sign(messageId, at, body));
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
