import type { Executor } from './executor.ts';

/**
 * What retention may remove from one table before a cutoff: how many rows, and the span of
 * their times (UTC ISO 8601; null when there is none). Each owner of a table that grows with
 * traffic answers it for its own rows (docs/retention.md).
 */
export interface PrunableRows {
  readonly count: number;
  readonly oldest: string | null;
  readonly newest: string | null;
}

/** One pruning batch: remove at most `limit` rows older than `before`; `at` stamps what is kept. */
export interface PruneBatch {
  readonly before: Date;
  readonly limit: number;
  readonly at: Date;
}

/** A `count(*), min(t), max(t)` row as either dialect returns it. */
export function prunableRows(
  row:
    { count: number | string | bigint; oldest: string | null; newest: string | null } | undefined,
): PrunableRows {
  return {
    count: Number(row?.count ?? 0),
    oldest: row?.oldest ?? null,
    newest: row?.newest ?? null,
  };
}

/**
 * A table retention may prune, as its owner describes it: its name and its two statements.
 * Only the owner names its table (eslint `TABLE_OWNERS`); src/retention holds the periods.
 */
export interface PrunableTable {
  readonly table: string;
  /** What may go before `before`. */
  readonly prunable: (db: Executor, before: Date) => Promise<PrunableRows>;
  /** One batch: pick at most `limit` ids, then change or delete them by id. Returns the rows done. */
  readonly prune: (db: Executor, batch: PruneBatch) => Promise<number>;
}
