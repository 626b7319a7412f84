import type { ExpectationRow } from '../expectations.tables.ts';
import type { MatchableExpectation } from './match-types.ts';

/** The row's matching fields, as the engine takes them. */
export function matchableExpectation(row: ExpectationRow): MatchableExpectation {
  return {
    id: Number(row.id),
    expectation_id: row.expectation_id,
    direction: row.direction,
    item_kinds: row.item_kinds === null ? null : (JSON.parse(row.item_kinds) as string[]),
    currency: row.currency,
    amount_min: Number(row.amount_min),
    amount_max: Number(row.amount_max),
    window_from: row.window_from,
    window_to: row.window_to,
    reference: row.reference,
    item_id: row.item_id,
    counterparty: row.counterparty,
    purchase_reference: row.purchase_reference,
    description_pattern: row.description_pattern,
    allow_split: Number(row.allow_split) === 1,
    match_group: row.match_group,
    state: row.state,
  };
}
