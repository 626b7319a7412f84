import { createHmac } from 'node:crypto';
import { constantTimeEqual } from './constant-time-equal.ts';
import {
  checkTimestamp,
  refused,
  singleHeader,
  type SignatureVerifier,
} from './signature-outcome.ts';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `whsec_<base64>` (or bare base64) → key bytes; undefined when it decodes to nothing. */
export function standardWebhooksKey(secret: string): Buffer | undefined {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!BASE64.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length === 0 ? undefined : key;
}

/**
 * Standard Webhooks (https://www.standardwebhooks.com/): `webhook-signature` holds one or
 * more space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
 * in one header line: each of the three headers sent on several lines is malformed.
 * Every configured key is tried against every `v1` signature, so during a rotation both the
 * old and the new secret verify. The HMAC runs over the raw bytes, never a re-encoded string.
 *
 * Written on node:crypto rather than the `standardwebhooks` package (which the tests and the
 * simulator use to sign): its verify runs a JavaScript SHA-256, reports failures only as
 * messages, and decodes the body to a string first.
 */
export function standardWebhooksVerifier(keys: readonly Buffer[]): SignatureVerifier {
  return (rawBody, headers, nowMs) => {
    const id = singleHeader(headers, 'webhook-id');
    if (typeof id === 'object') return id;
    const timestamp = singleHeader(headers, 'webhook-timestamp');
    if (typeof timestamp === 'object') return timestamp;
    const signature = singleHeader(headers, 'webhook-signature');
    if (typeof signature === 'object') return signature;
    if (id === undefined || timestamp === undefined || signature === undefined) {
      const missing = [
        signature === undefined ? 'webhook-signature' : '',
        id === undefined ? 'webhook-id' : '',
        timestamp === undefined ? 'webhook-timestamp' : '',
      ].filter((name) => name !== '');
      return refused('missing_signature', `missing header: ${missing.join(', ')}`);
    }
    const stale = checkTimestamp('webhook-timestamp', timestamp, nowMs);
    if (stale) return stale;
    const candidates: Buffer[] = [];
    for (const part of signature.split(' ')) {
      const [version, encoded] = part.split(',', 2);
      if (version === 'v1' && encoded !== undefined && BASE64.test(encoded)) {
        candidates.push(Buffer.from(encoded, 'base64'));
      }
    }
    if (candidates.length === 0) {
      return refused('malformed_signature', 'webhook-signature has no v1,<base64> signature');
    }
    for (const key of keys) {
      const expected = createHmac('sha256', key)
        .update(`${id}.${timestamp}.`)
        .update(rawBody)
        .digest();
      if (candidates.some((candidate) => constantTimeEqual(candidate, expected))) {
        return { ok: true, signedEventId: id };
      }
    }
    return refused('bad_signature', 'no configured secret produces this signature');
  };
}
