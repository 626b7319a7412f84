import type { Executor } from '../db/index.ts';
import {
  BREAK_KINDS,
  EXPECTATION_STATES,
  type ExpectationBreakKind,
  type ExpectationState,
} from './expectations.tables.ts';

/** How many expectations are in each state, and how many breaks of each kind are open. */
export interface ExpectationCounts {
  /** Every state, zero included. */
  readonly states: Record<ExpectationState, number>;
  /** Open breaks by kind, zero included. */
  readonly openBreaks: Record<ExpectationBreakKind, number>;
}

/** The counts of one environment (the dashboard's summary): two grouped queries. */
export async function expectationCounts(
  db: Executor,
  environment: string,
): Promise<ExpectationCounts> {
  const states = Object.fromEntries(EXPECTATION_STATES.map((s) => [s, 0])) as Record<
    ExpectationState,
    number
  >;
  const openBreaks = Object.fromEntries(BREAK_KINDS.map((k) => [k, 0])) as Record<
    ExpectationBreakKind,
    number
  >;
  const byState = await db
    .selectFrom('expectations')
    .select(['state', db.fn.countAll<string | number>().as('n')])
    .where('environment', '=', environment)
    .groupBy('state')
    .execute();
  for (const row of byState) states[row.state] = Number(row.n);
  const byKind = await db
    .selectFrom('expectation_breaks')
    .select(['kind', db.fn.countAll<string | number>().as('n')])
    .where('environment', '=', environment)
    .where('state', '=', 'open')
    .groupBy('kind')
    .execute();
  for (const row of byKind) openBreaks[row.kind] = Number(row.n);
  return { states, openBreaks };
}
