// The defaults of sweeps and backfills, declared once here. A leaf of constants that imports
// nothing, so the configuration (src/config, the bottom layer) may read it directly, as
// src/db/database.ts reads `*.table.ts` files (.dependency-cruiser.cjs,
// rule config-reads-component-defaults). Merged into options in resolvePollingOptions.

/** @see PollingOptions (polling-options.ts) for what each one means. */
export const DEFAULT_POLLING_OPTIONS = {
  sweepOverlapMs: 10 * 60_000,
  perPage: 100,
  backfillWindowMs: 24 * 3_600_000,
} as const;
