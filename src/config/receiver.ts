import { z } from 'zod';
import { nonNegativeInt, positiveInt, type Parsed } from './fields.ts';

// How much the receiver takes on before it asks the sender to come back later
// (docs/receiver.md, "Backpressure"). The receiver is a door, which the configuration may not
// import, so its defaults are declared here, like the webhook variables'.

/**
 * About three minutes of work for the workers at the measured 80 to 170 items/s (some three
 * events each), so a burst the workers will absorb soon is never refused, while the backlog
 * stays far inside a sender's retry window and its count stays cheap.
 */
const DEFAULT_MAX_BACKLOG = 50_000;
/** Each in-flight request holds a body (up to PAYSYNC_WEBHOOK_MAX_BYTES) and a socket. */
const DEFAULT_MAX_IN_FLIGHT = 256;
/**
 * An eighth of the receiver's connection cap (4 per in-flight place, 1,024 by default): one
 * address cannot take the port, and a sender's keep-alive pool fits well within it.
 */
const DEFAULT_CONNECTIONS_PER_CLIENT = 128;

/** Express's `trust proxy`: false, a number of hops, or addresses, CIDR ranges and names. */
const trustProxy = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx): false | number | string[] => {
    if (value === undefined || value === '' || value.toLowerCase() === 'false') return false;
    if (/^\d+$/.test(value)) return Number(value);
    const entries = value.split(',').map((entry) => entry.trim());
    if (entries.some((entry) => !/^[A-Za-z0-9.:/]+$/.test(entry))) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be false, a number of proxies, or addresses and CIDR ranges separated by commas (loopback, 10.0.0.0/8)',
      });
      return z.NEVER;
    }
    return entries;
  });

export const RECEIVER_VARIABLES = {
  /**
   * Open inbox rows (stored, not yet processed) past which webhooks get 503 with
   * `Retry-After`, before their body is read. @defaultValue 50000
   */
  PAYSYNC_RECEIVER_MAX_BACKLOG: positiveInt(DEFAULT_MAX_BACKLOG, 10_000_000),
  /** Webhook requests handled at once past which the next gets 503 at once. @defaultValue 256 */
  PAYSYNC_RECEIVER_MAX_IN_FLIGHT: positiveInt(DEFAULT_MAX_IN_FLIGHT, 100_000),
  /**
   * Open connections one client address may hold on the receiver's port and on the ops port;
   * past it a new one is closed at once. Behind a reverse proxy every connection comes from the
   * proxy: a proxy on this host (127.0.0.1, ::1) is not limited per address; raise it, or 0 (no
   * limit), for one elsewhere, and let the proxy limit clients. @defaultValue 128
   */
  PAYSYNC_CONNECTIONS_PER_CLIENT: nonNegativeInt(DEFAULT_CONNECTIONS_PER_CLIENT, 1_000_000),
  /**
   * Which proxies may say who the client is, in `X-Forwarded-For` (Express `trust proxy`):
   * `false`, a number of proxies in front, or their addresses (`loopback`, `10.0.0.0/8`).
   * Failed logins are throttled per client address: untrusted, the address is the socket's.
   * @defaultValue false (the header is ignored)
   */
  PAYSYNC_TRUST_PROXY: trustProxy,
};

export interface ReceiverSettings {
  /** @defaultValue 50000 */
  readonly maxBacklog: number;
  /** @defaultValue 256 */
  readonly maxInFlight: number;
  /** Open connections per client address, on each port; 0: no limit. @defaultValue 128 */
  readonly connectionsPerClient: number;
  /** Express `trust proxy` for the client address. @defaultValue false */
  readonly trustProxy: false | number | readonly string[];
}

export function receiverSettings(e: Parsed<typeof RECEIVER_VARIABLES>): ReceiverSettings {
  return Object.freeze({
    maxBacklog: e.PAYSYNC_RECEIVER_MAX_BACKLOG,
    maxInFlight: e.PAYSYNC_RECEIVER_MAX_IN_FLIGHT,
    connectionsPerClient: e.PAYSYNC_CONNECTIONS_PER_CLIENT,
    trustProxy: e.PAYSYNC_TRUST_PROXY,
  });
}
