// The relay's default retry schedule, declared once here. A leaf of constants that imports
// nothing, so the configuration (src/config, the bottom layer) may read it directly
// (.dependency-cruiser.cjs, rule defaults-are-leaves), and writes it as
// `PAYSYNC_RELAY_RETRY_SCHEDULE`'s default text; test/foundation/one-home-per-word.test.ts keeps
// it the only one.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The wait before each attempt of a delivery (docs/relay.md, "Retry schedule"); the first is
 * immediate, and its length is the attempt limit. The default of
 * `PAYSYNC_RELAY_RETRY_SCHEDULE` (`config.relay.retryScheduleMs`).
 */
export const RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
]);
