import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../db/index.ts';
import type { ClosedPeriodTable, PeriodEventTable } from './closed-period.table.ts';

/**
 * The fact "this month is closed": the ledger owns it (it books a late change past a closed
 * month, src/ledger/late-change.ts); `paysync close` and `reopen` (src/exports) write it
 * through these functions, in their own transaction.
 */
export type ClosedPeriodRow = Selectable<ClosedPeriodTable>;

/** One close or reopen of a month, as `paysync close`/`reopen` log it (its id is generated). */
export type NewPeriodEvent = Insertable<PeriodEventTable>;

/** The closed month `period` of `environment`, or undefined when it is open. */
export async function findClosedPeriod(
  db: Executor,
  environment: string,
  period: string,
): Promise<ClosedPeriodRow | undefined> {
  return db
    .selectFrom('closed_periods')
    .selectAll()
    .where('environment', '=', environment)
    .where('period', '=', period)
    .executeTakeFirst();
}

/** The closed month whose window is exactly `[from, to)`, or undefined. */
export async function closedPeriodByWindow(
  db: Executor,
  environment: string,
  window: { readonly from: string; readonly to: string },
): Promise<ClosedPeriodRow | undefined> {
  return db
    .selectFrom('closed_periods')
    .selectAll()
    .where('environment', '=', environment)
    .where('window_from', '=', window.from)
    .where('window_to', '=', window.to)
    .executeTakeFirst();
}

/** Every closed month of `environment`. */
export async function closedPeriodsOf(
  db: Executor,
  environment: string,
): Promise<ClosedPeriodRow[]> {
  return db
    .selectFrom('closed_periods')
    .selectAll()
    .where('environment', '=', environment)
    .execute();
}

/** Records a month as closed. */
export async function insertClosedPeriod(db: Executor, row: ClosedPeriodRow): Promise<void> {
  await db.insertInto('closed_periods').values(row).execute();
}

/** Reopens a month: deletes its row and returns it, or undefined when it was not closed. */
export async function deleteClosedPeriod(
  db: Executor,
  environment: string,
  period: string,
): Promise<ClosedPeriodRow | undefined> {
  return db
    .deleteFrom('closed_periods')
    .where('environment', '=', environment)
    .where('period', '=', period)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Logs a close or a reopen of a month, with who and why: the audit trail of the periods. The
 * caller writes it in the transaction that closes or reopens the month.
 */
export async function insertPeriodEvent(db: Executor, event: NewPeriodEvent): Promise<void> {
  await db.insertInto('period_events').values(event).execute();
}
