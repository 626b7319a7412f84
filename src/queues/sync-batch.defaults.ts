// The sync batch's default size, declared once here. A leaf of constants that imports nothing,
// so the configuration (src/config, the bottom layer) may read it directly (.dependency-cruiser.cjs,
// rule defaults-are-leaves); test/foundation/one-home-per-word.test.ts keeps it the only one.

/** Resource references per `sync-batch` job unless configured (`PAYSYNC_SYNC_BATCH_SIZE`). */
export const DEFAULT_SYNC_BATCH_SIZE = 100;
