import type { Executor } from '../db/index.ts';
import { historyOf, type ExpectationHistoryView } from './expectation-history.ts';
import {
  expectationView,
  requireExpectationRow,
  type ExpectationView,
} from './expectation.repository.ts';
import { breaksOf, type BreakView } from './resolve-breaks.ts';

/** A settled item that pays (part of) the expectation. */
export interface ExpectationMatchView {
  readonly item_kind: string;
  readonly item_id: string;
  /** The part of the item's amount that pays this expectation (minor units). */
  readonly amount: number;
  readonly rule: string;
  readonly late: boolean;
  readonly settled_at: string;
  readonly matched_at: string;
}

/** One expectation with everything known about it: `paysync expect show`. */
export interface ExpectationDetail {
  readonly expectation: ExpectationView;
  readonly history: ExpectationHistoryView[];
  readonly matches: ExpectationMatchView[];
  readonly breaks: BreakView[];
}

export async function showExpectation(
  db: Executor,
  environment: string,
  expectationId: string,
): Promise<ExpectationDetail> {
  const row = await requireExpectationRow(db, environment, expectationId);
  const rowId = Number(row.id);
  const matches = await db
    .selectFrom('expectation_matches')
    .selectAll()
    .where('expectation', '=', rowId)
    .orderBy('id')
    .execute();
  return {
    expectation: expectationView(row),
    history: await historyOf(db, rowId),
    matches: matches.map((match) => ({
      item_kind: match.item_kind,
      item_id: match.item_id,
      amount: Number(match.amount),
      rule: match.rule,
      late: Number(match.late) === 1,
      settled_at: match.settled_at,
      matched_at: match.matched_at,
    })),
    breaks: await breaksOf(db, rowId),
  };
}
