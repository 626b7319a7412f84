import type { Executor } from '../db/index.ts';
import { breakQuery, breakView, type BreakView } from './resolve-breaks.ts';
import type { ExpectationBreakKind } from './expectations.tables.ts';

/** Which breaks a list shows. */
export interface ListBreaksFilter {
  /** @defaultValue every state */
  readonly state?: 'open' | 'resolved';
  readonly kind?: ExpectationBreakKind;
  /** @defaultValue 100 */
  readonly limit?: number;
}

/**
 * Breaks of one environment, newest first (the ops API, the dashboard): each with its
 * explanation, suggested action and, once resolved by hand, who, when and why.
 */
export async function listBreaks(
  db: Executor,
  environment: string,
  filter: ListBreaksFilter = {},
): Promise<BreakView[]> {
  let query = breakQuery(db).where('b.environment', '=', environment);
  if (filter.state !== undefined) query = query.where('b.state', '=', filter.state);
  if (filter.kind !== undefined) query = query.where('b.kind', '=', filter.kind);
  const rows = await query
    .orderBy('b.id', 'desc')
    .limit(filter.limit ?? 100)
    .execute();
  return rows.map(breakView);
}
