import type { Executor } from '../db/index.ts';

/**
 * Where a journal effective at `effectiveAt` must be booked: undefined when no closed period
 * holds that instant; else the start of the first open period after it (closed months in a row
 * are skipped), and the closed month it touched. A closed month's books never change.
 */
export async function lateChangeTarget(
  db: Executor,
  effectiveAt: string,
): Promise<{ period: string; bookedAt: string } | undefined> {
  let closed = await db
    .selectFrom('closed_periods')
    .select(['period', 'window_to'])
    .where('window_from', '<=', effectiveAt)
    .where('window_to', '>', effectiveAt)
    .executeTakeFirst();
  if (!closed) return undefined;
  const period = closed.period;
  let bookedAt = closed.window_to;
  while (
    (closed = await db
      .selectFrom('closed_periods')
      .select(['period', 'window_to'])
      .where('window_from', '=', bookedAt)
      .executeTakeFirst())
  ) {
    bookedAt = closed.window_to;
  }
  return { period, bookedAt };
}
