import type { Executor } from '../db/index.ts';
import { breakQuery, breakView, type BreakView } from './resolve-breaks.ts';
import {
  EXPECTATION_STATES,
  type ExpectationBreakKind,
  type ExpectationState,
} from './expectations.tables.ts';

/**
 * What the rest of the books read of the expectations (docs/expectations.md, "In the verdict",
 * "Alerts", "Exports", "The report"): the daily verdict, the overdue alerts, the exports'
 * `expectation_id` and `paysync expect report`. Read only.
 */

/** Half-open `[from, to)`, UTC ISO 8601 with ms. */
export interface InstantWindow {
  readonly from: string;
  readonly to: string;
}

/** The open breaks detected in `[from, to)`, oldest first (the day's verdict lists them). */
export async function openBreaksDetectedIn(
  db: Executor,
  environment: string,
  window: InstantWindow,
): Promise<BreakView[]> {
  const rows = await breakQuery(db)
    .where('b.environment', '=', environment)
    .where('b.state', '=', 'open')
    .where('b.detected_at', '>=', window.from)
    .where('b.detected_at', '<', window.to)
    .orderBy('b.detected_at')
    .orderBy('b.id')
    .execute();
  return rows.map(breakView);
}

/** The merchant's expectation ids each item pays, sorted; items that pay none are absent. */
export async function expectationIdsOfItems(
  db: Executor,
  itemIds: readonly string[],
): Promise<Map<string, string[]>> {
  const byItem = new Map<string, string[]>();
  const unique = [...new Set(itemIds)];
  // Bound the bind parameters of one query (SQLite allows 32,766, PostgreSQL 65,535).
  for (let i = 0; i < unique.length; i += 1000) {
    const rows = await db
      .selectFrom('expectation_matches as m')
      .innerJoin('expectations as e', 'e.id', 'm.expectation')
      .select(['m.item_id', 'e.expectation_id'])
      .where('m.item_id', 'in', unique.slice(i, i + 1000))
      .execute();
    for (const row of rows) {
      const list = byItem.get(row.item_id) ?? [];
      if (!list.includes(row.expectation_id)) list.push(row.expectation_id);
      byItem.set(row.item_id, list);
    }
  }
  for (const list of byItem.values()) list.sort();
  return byItem;
}

/** An overdue expectation, with what an alert about it says. */
export interface OverdueExpectation {
  readonly expectation_id: string;
  readonly direction: 'in' | 'out';
  readonly currency: string;
  readonly amount_min: number;
  readonly amount_max: number;
  readonly window_to: string;
  readonly reference: string | null;
  readonly matched_amount: number;
}

/** Every expectation now `overdue`, by the merchant's id. */
export async function overdueExpectations(
  db: Executor,
  environment: string,
  limit = 100_000,
): Promise<OverdueExpectation[]> {
  const rows = await db
    .selectFrom('expectations')
    .select([
      'expectation_id',
      'direction',
      'currency',
      'amount_min',
      'amount_max',
      'window_to',
      'reference',
      'matched_amount',
    ])
    .where('environment', '=', environment)
    .where('state', '=', 'overdue')
    .orderBy('expectation_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    ...row,
    amount_min: Number(row.amount_min),
    amount_max: Number(row.amount_max),
    matched_amount: Number(row.matched_amount),
  }));
}

/** Expected and matched money of one currency, integer minor units. */
export interface ExpectedMoney {
  readonly currency: string;
  /** Expectations counted (cancelled ones are not). */
  readonly count: number;
  /** Sum of `amount_min` (equal to `amount_max` for exact amounts). */
  readonly expectedMin: number;
  readonly expectedMax: number;
  readonly matched: number;
}

/** `paysync expect report`: the expectations due in a period, and the breaks detected in it. */
export interface ExpectationPeriodReport {
  readonly environment: string;
  readonly from: string;
  readonly to: string;
  /** Expectations whose window ends in `(from, to]`, by state (every state, 0 included). */
  readonly states: readonly { state: ExpectationState; count: number }[];
  readonly money: readonly ExpectedMoney[];
  /** Breaks detected in `[from, to)` by kind: open, and resolved (by hand). */
  readonly breaks: readonly { kind: ExpectationBreakKind; open: number; resolved: number }[];
  /** The open breaks detected in `[from, to)`, oldest first. */
  readonly openBreaks: readonly BreakView[];
}

/**
 * The report of a period: the expectations due in it (their window ends in `(from, to]`) by
 * state, their expected against matched money per currency, and the breaks detected in it.
 */
export async function expectationPeriodReport(
  db: Executor,
  environment: string,
  window: InstantWindow,
): Promise<ExpectationPeriodReport> {
  const due = db
    .selectFrom('expectations')
    .where('environment', '=', environment)
    // A window's end is exclusive, like a day's: a window ending at the period's last
    // midnight (`window_to` a calendar day, say) is due in it, one ending at its first is not.
    .where('window_to', '>', window.from)
    .where('window_to', '<=', window.to);
  const stateRows = await due
    .select(['state', (eb) => eb.fn.countAll<number | string>().as('count')])
    .groupBy('state')
    .execute();
  const counted = new Map(stateRows.map((row) => [row.state, Number(row.count)]));
  const moneyRows = await due
    .where('state', '!=', 'cancelled')
    .select([
      'currency',
      (eb) => eb.fn.countAll<number | string>().as('count'),
      (eb) => eb.fn.sum<number | string>('amount_min').as('expected_min'),
      (eb) => eb.fn.sum<number | string>('amount_max').as('expected_max'),
      (eb) => eb.fn.sum<number | string>('matched_amount').as('matched'),
    ])
    .groupBy('currency')
    .orderBy('currency')
    .execute();
  const breakRows = await db
    .selectFrom('expectation_breaks')
    .select(['kind', 'state', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('environment', '=', environment)
    .where('detected_at', '>=', window.from)
    .where('detected_at', '<', window.to)
    .groupBy(['kind', 'state'])
    .execute();
  const byKind = new Map<ExpectationBreakKind, { open: number; resolved: number }>();
  for (const row of breakRows) {
    const entry = byKind.get(row.kind) ?? { open: 0, resolved: 0 };
    entry[row.state] += Number(row.count);
    byKind.set(row.kind, entry);
  }
  return {
    environment,
    from: window.from,
    to: window.to,
    states: EXPECTATION_STATES.map((state) => ({ state, count: counted.get(state) ?? 0 })),
    money: moneyRows.map((row) => ({
      currency: row.currency,
      count: Number(row.count),
      expectedMin: Number(row.expected_min ?? 0),
      expectedMax: Number(row.expected_max ?? 0),
      matched: Number(row.matched ?? 0),
    })),
    breaks: [...byKind.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, counts]) => ({ kind, ...counts })),
    openBreaks: await openBreaksDetectedIn(db, environment, window),
  };
}
