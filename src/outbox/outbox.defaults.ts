// The outbox batch's default size, declared once here. A leaf of constants that imports nothing,
// so the configuration (src/config, the bottom layer) may read it directly (.dependency-cruiser.cjs,
// rule defaults-are-leaves); test/foundation/one-home-per-word.test.ts keeps it the only one.

/**
 * Rows one follow-up job carries, and rows handed out per dispatcher pass, unless configured
 * (`PAYSYNC_OUTBOX_BATCH_SIZE`).
 */
export const DEFAULT_OUTBOX_BATCH_SIZE = 100;
