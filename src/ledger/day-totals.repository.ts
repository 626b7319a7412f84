import type { Executor } from '../db/index.ts';
import type { JournalLine } from './ledger-types.ts';
import { runBulk, type BulkStatement } from '../db/index.ts';

/** The UTC day a journal effective at `effectiveAt` (ISO 8601, UTC) counts in. */
export function dayOf(effectiveAt: string): string {
  return effectiveAt.slice(0, 10);
}

/** The first instant of `instant`'s UTC day. */
export function startOfDay(instant: string): string {
  return `${dayOf(instant)}T00:00:00.000Z`;
}

const ADD_DAY_TOTALS: BulkStatement = {
  table: 'ledger_day_totals',
  columns: ['day', 'account', 'currency', 'amount'],
  tail: 'on conflict (day, account, currency) do update set amount = ledger_day_totals.amount + excluded.amount',
};

/** A booked journal's lines, with the `effective_at` it was booked at. */
export interface BookedLines {
  readonly effectiveAt: string;
  readonly lines: readonly JournalLine[];
}

/**
 * Adds booked lines to the day totals, in the caller's transaction (the one that inserted the
 * lines): one multi-row upsert. Lines are summed per (day, account, currency) first (an upsert
 * may touch a row once per statement) and the rows sorted by that key, so concurrent writers on
 * PostgreSQL lock them in one order and cannot deadlock on each other. A sum of zero is still
 * written: a row exists wherever lines exist, as the old sums over lines returned zero sums.
 */
export async function addToDayTotals(db: Executor, booked: readonly BookedLines[]): Promise<void> {
  const sums = new Map<string, [string, string, string, number]>();
  for (const journal of booked) {
    const day = dayOf(journal.effectiveAt);
    for (const line of journal.lines) {
      const key = `${day}\u0000${line.account}\u0000${line.currency}`;
      const row = sums.get(key);
      if (row) row[3] += line.amount;
      else sums.set(key, [day, line.account, line.currency, line.amount]);
    }
  }
  const rows = [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, row]) => row);
  await runBulk(db, ADD_DAY_TOTALS, rows);
}
