/**
 * The request headers kept with an inbox row: what helps to replay, audit or re-verify an
 * event, and nothing that authenticates a caller. The list is explicit (an allow-list), so a
 * proxy adding `authorization`, `cookie` or an API key header never gets it stored.
 * Signatures are kept: an HMAC reveals nothing about its key and proves what was received.
 */
export const STORED_HEADERS: readonly string[] = [
  'content-type',
  'content-length',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'x-request-id',
  'x-forwarded-for',
];

/**
 * Picks {@link STORED_HEADERS} plus `extra` (the configured HMAC signature and timestamp
 * headers) from Node's lower-cased header object.
 */
export function storedHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  extra: readonly string[] = [],
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of [...STORED_HEADERS, ...extra]) {
    const value = headers[name];
    if (value === undefined) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
