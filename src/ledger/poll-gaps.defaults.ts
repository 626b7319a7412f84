// The janitor's default gaps, declared once here. A leaf of constants that imports nothing, so
// the configuration (src/config, the bottom layer) may read it directly, as src/db/database.ts
// reads `*.table.ts` files (.dependency-cruiser.cjs, rule config-reads-component-defaults).

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** 1 m, 5 m, 15 m, 1 h, 6 h, then every 24 h (`PAYSYNC_JANITOR_SCHEDULE`). */
export const DEFAULT_POLL_GAPS: readonly number[] = [
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  HOUR,
  6 * HOUR,
  24 * HOUR,
];
