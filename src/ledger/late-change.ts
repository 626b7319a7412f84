import type { Executor } from '../db/index.ts';

/** A closed month as the late-change rule needs it: `[windowFrom, windowTo)`. */
export interface ClosedWindow {
  readonly period: string;
  readonly window_from: string;
  readonly window_to: string;
}

export interface LateChange {
  /** The closed month the change touched. */
  readonly period: string;
  /** The first instant of the first open period after it. */
  readonly bookedAt: string;
}

/**
 * Where a journal effective at `effectiveAt` must be booked: undefined when no closed period
 * holds that instant; else the start of the first open period after it (closed months in a row
 * are skipped), and the closed month it touched. A closed month's books never change.
 */
export function lateChangeIn(
  closed: readonly ClosedWindow[],
  effectiveAt: string,
): LateChange | undefined {
  const touched = closed.find((c) => c.window_from <= effectiveAt && c.window_to > effectiveAt);
  if (!touched) return undefined;
  let bookedAt = touched.window_to;
  for (let next; (next = closed.find((c) => c.window_from === bookedAt));) {
    bookedAt = next.window_to;
  }
  return { period: touched.period, bookedAt };
}

/** Every closed month: a handful of rows, read once per batch. */
export function closedWindows(db: Executor): Promise<ClosedWindow[]> {
  return db.selectFrom('closed_periods').select(['period', 'window_from', 'window_to']).execute();
}

/** {@link lateChangeIn} against the database's closed periods. */
export async function lateChangeTarget(
  db: Executor,
  effectiveAt: string,
): Promise<LateChange | undefined> {
  return lateChangeIn(await closedWindows(db), effectiveAt);
}
