import type { Insertable } from 'kysely';
import type { Executor } from '../db/index.ts';
import type { ExpectationHistoryRow, ExpectationHistoryTable } from './expectations.tables.ts';

/** The history of every change of an expectation: who, when, where from, before and after. */

/** One change as shown: before and after as the JSON objects they are. */
export interface ExpectationHistoryView {
  readonly version: number;
  readonly change: ExpectationHistoryRow['change'];
  readonly source: string;
  readonly actor: string | null;
  readonly before: unknown;
  readonly after: unknown;
  readonly at: string;
}

/** History rows in one statement per few hundred (imports write thousands). */
export async function insertHistory(
  db: Executor,
  rows: readonly Insertable<ExpectationHistoryTable>[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) {
    await db
      .insertInto('expectation_history')
      .values(rows.slice(start, start + 500))
      .execute();
  }
}

/** An expectation's changes, oldest first. */
export async function historyOf(
  db: Executor,
  expectationRowId: number,
): Promise<ExpectationHistoryView[]> {
  const rows = await db
    .selectFrom('expectation_history')
    .selectAll()
    .where('expectation', '=', expectationRowId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    version: Number(row.version),
    change: row.change,
    source: row.source,
    actor: row.actor,
    before: row.before === null ? null : (JSON.parse(row.before) as unknown),
    after: row.after === null ? null : (JSON.parse(row.after) as unknown),
    at: row.at,
  }));
}
