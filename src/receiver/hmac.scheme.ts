import { createHmac } from 'node:crypto';
import { constantTimeEqual } from './constant-time-equal.ts';
import {
  checkTimestamp,
  refused,
  singleHeader,
  type SignatureVerifier,
} from './signature-outcome.ts';

export interface HmacSchemeSettings {
  /** Lower-case name of the header with the signature. */
  readonly header: string;
  readonly encoding: 'hex' | 'base64';
  /** Lower-case name of a Unix-seconds header; when set, it is signed too. */
  readonly timestampHeader: string | undefined;
  /** Each secret's UTF-8 bytes are an HMAC key; all are tried (rotation). */
  readonly secrets: readonly string[];
}

const FORMAT = { hex: /^(?:[0-9a-fA-F]{2})+$/, base64: /^[A-Za-z0-9+/]+={0,2}$/ } as const;

/**
 * Generic HMAC-SHA256. Without a timestamp header the signed bytes are the raw body; with
 * one they are `<timestamp>.<raw body>`, and the timestamp must be within ±5 minutes, so a
 * captured request cannot be replayed later. A `sha256=` prefix on the signature (GitHub's
 * style) is accepted. Either header sent on several lines is malformed, not a set of
 * alternatives.
 */
export function hmacVerifier(settings: HmacSchemeSettings): SignatureVerifier {
  const keys = settings.secrets.map((secret) => Buffer.from(secret, 'utf8'));
  return (rawBody, headers, nowMs) => {
    const signature = singleHeader(headers, settings.header);
    if (typeof signature === 'object') return signature;
    if (signature === undefined) {
      return refused('missing_signature', `missing header: ${settings.header}`);
    }
    let timestamp: string | undefined;
    if (settings.timestampHeader) {
      const value = singleHeader(headers, settings.timestampHeader);
      if (typeof value === 'object') return value;
      timestamp = value;
      if (timestamp === undefined) {
        return refused('missing_signature', `missing header: ${settings.timestampHeader}`);
      }
      const stale = checkTimestamp(settings.timestampHeader, timestamp, nowMs);
      if (stale) return stale;
    }
    const encoded = signature.startsWith('sha256=') ? signature.slice('sha256='.length) : signature;
    if (!FORMAT[settings.encoding].test(encoded)) {
      return refused('malformed_signature', `${settings.header} is not ${settings.encoding}`);
    }
    const received = Buffer.from(encoded, settings.encoding);
    for (const key of keys) {
      const hmac = createHmac('sha256', key);
      if (timestamp !== undefined) hmac.update(`${timestamp}.`);
      if (constantTimeEqual(received, hmac.update(rawBody).digest())) return { ok: true };
    }
    return refused('bad_signature', 'no configured secret produces this signature');
  };
}
