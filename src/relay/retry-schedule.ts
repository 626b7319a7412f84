/**
 * When a failed delivery is tried again (docs/relay.md, "Retry schedule"): the first
 * attempt goes out at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the attempt
 * before; after the eighth attempt fails the delivery gives up (about 27 h 35 min in all).
 * Each wait is spread by ±{@link RETRY_JITTER} so endpoints that failed together (an outage on
 * the merchant's side) are not all tried again in the same second.
 */

import { RETRY_SCHEDULE_MS } from './retry-schedule.defaults.ts';

/** Attempts a delivery gets before it gives up (with the documented schedule). */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;

/** Each wait is multiplied by a factor drawn in [1 − jitter, 1 + jitter]. */
export const RETRY_JITTER = 0.1;

/**
 * When the next attempt is due after `attemptsMade` attempts failed (the last one at `now`), or
 * undefined when the schedule is used up and the delivery gives up. `random` returns [0, 1);
 * `schedule` is the wait before each attempt (`config.relay.retryScheduleMs`).
 */
export function nextAttemptAt(
  attemptsMade: number,
  now: Date,
  random: () => number = Math.random,
  schedule: readonly number[] = RETRY_SCHEDULE_MS,
): Date | undefined {
  if (attemptsMade >= schedule.length) return undefined;
  const wait = schedule[Math.max(attemptsMade, 1)]!;
  const factor = 1 + (random() * 2 - 1) * RETRY_JITTER;
  return new Date(now.getTime() + Math.round(wait * factor));
}
