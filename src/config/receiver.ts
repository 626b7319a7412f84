import { positiveInt, type Parsed } from './fields.ts';

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

export const RECEIVER_VARIABLES = {
  /**
   * Open inbox rows (stored, not yet processed) past which webhooks get 503 with
   * `Retry-After`, before their body is read. @defaultValue 50000
   */
  PAYSYNC_RECEIVER_MAX_BACKLOG: positiveInt(DEFAULT_MAX_BACKLOG, 10_000_000),
  /** Webhook requests handled at once past which the next gets 503 at once. @defaultValue 256 */
  PAYSYNC_RECEIVER_MAX_IN_FLIGHT: positiveInt(DEFAULT_MAX_IN_FLIGHT, 100_000),
};

export interface ReceiverSettings {
  /** @defaultValue 50000 */
  readonly maxBacklog: number;
  /** @defaultValue 256 */
  readonly maxInFlight: number;
}

export function receiverSettings(e: Parsed<typeof RECEIVER_VARIABLES>): ReceiverSettings {
  return Object.freeze({
    maxBacklog: e.PAYSYNC_RECEIVER_MAX_BACKLOG,
    maxInFlight: e.PAYSYNC_RECEIVER_MAX_IN_FLIGHT,
  });
}
