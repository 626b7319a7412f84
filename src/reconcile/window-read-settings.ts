/** How the planner decides (docs/processing.md, "Window reads"). */
export interface WindowReadSettings {
  /** Waiting items of a kind, inside a window, from which a window read is tried. @defaultValue 4 */
  readonly minItems: number;
  /**
   * An item the mirror has never seen is taken to have been created at most this long before
   * its first event arrived. A wrong guess costs the item one read of its own. @defaultValue 10000
   */
  readonly hintSlackMs: number;
  /** Items created longer ago than this are read one by one. @defaultValue 900000 (15 min) */
  readonly maxAgeMs: number;
  /** Items asked per page. @defaultValue 100 */
  readonly perPage: number;
  /**
   * A window read stops after this many pages per waiting item it set out to cover, so it never
   * costs more than a third of the per-item reads it replaces. @defaultValue 1/3
   */
  readonly pagesPerItem: number;
}

export const DEFAULT_WINDOW_READS: WindowReadSettings = {
  minItems: 4,
  hintSlackMs: 10_000,
  maxAgeMs: 15 * 60_000,
  perPage: 100,
  pagesPerItem: 1 / 3,
};
