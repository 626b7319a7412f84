/** Why a webhook's signature was refused; the 401 body's `error` and the metric's label. */
export type SignatureFailureReason =
  /** A header the scheme needs (signature, id or timestamp) is absent. */
  | 'missing_signature'
  /** A header is there but cannot be parsed (not `v1,<base64>`, not hex, not Unix seconds). */
  | 'malformed_signature'
  /** The signed timestamp is more than the tolerance away from now, either way. */
  | 'stale_timestamp'
  /** Well-formed, but no configured secret produces it. */
  | 'bad_signature';

export type SignatureOutcome =
  | {
      readonly ok: true;
      /** An event id the signature covers (Standard Webhooks' `webhook-id`), if any. */
      readonly signedEventId?: string;
    }
  | {
      readonly ok: false;
      readonly reason: SignatureFailureReason;
      /** For the sender, in a few words; never holds a secret or the expected signature. */
      readonly message: string;
    };

export type IncomingHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Checks one request. `nowMs` is the clock's reading when the request arrived (the route takes
 * it from the process's clock; tests pass their own): signed timestamps are checked against it.
 */
export type SignatureVerifier = (
  rawBody: Buffer,
  headers: IncomingHeaders,
  nowMs: number,
) => SignatureOutcome;

/** ±5 minutes, as Standard Webhooks recommends; applies to the HMAC timestamp header too. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export function refused(
  reason: SignatureFailureReason,
  message: string,
): Extract<SignatureOutcome, { ok: false }> {
  return { ok: false, reason, message };
}

/**
 * The one value of a header the scheme needs: undefined when absent or blank, a refusal when
 * it came on more than one line. RFC 9110 (section 5.3) lets a sender repeat a field only when
 * its value is a comma-separated list. Standard Webhooks defines `webhook-signature` as a
 * *space*-separated list in one header (several signatures during a secret rotation), and
 * `webhook-id` and `webhook-timestamp` as single values. Node joins repeated lines with ", ",
 * which would turn two ids into the id "a, b" and two signature lines into alternatives; the
 * route passes Node's `headersDistinct` so that repeated lines stay visible here.
 */
export function singleHeader(
  headers: IncomingHeaders,
  name: string,
): string | undefined | Extract<SignatureOutcome, { ok: false }> {
  const value = headers[name];
  const lines = value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (lines.length > 1) {
    return refused(
      'malformed_signature',
      `${name} was sent on ${lines.length} header lines; send it once (several signatures go space-separated in one webhook-signature header)`,
    );
  }
  const line = lines[0]?.trim();
  return line === undefined || line === '' ? undefined : line;
}

/** Checks a Unix-seconds timestamp header against the tolerance. */
export function checkTimestamp(
  header: string,
  value: string,
  nowMs: number,
): Extract<SignatureOutcome, { ok: false }> | undefined {
  if (!/^\d{1,12}$/.test(value)) {
    return refused('malformed_signature', `${header} must be Unix seconds`);
  }
  const skew = Math.abs(Math.floor(nowMs / 1000) - Number(value));
  if (skew > TIMESTAMP_TOLERANCE_SECONDS) {
    return refused(
      'stale_timestamp',
      `${header} is ${skew} s away from now; at most ${TIMESTAMP_TOLERANCE_SECONDS} s is accepted`,
    );
  }
  return undefined;
}
