import { rowContent } from '../expectation.repository.ts';
import type { ExpectationRow } from '../expectations.tables.ts';
import type { MatchableExpectation } from './match-types.ts';

/** The row's matching fields, as the engine takes them. */
export function matchableExpectation(row: ExpectationRow): MatchableExpectation {
  const { metadata: _metadata, ...content } = rowContent(row);
  return { ...content, id: Number(row.id), state: row.state };
}
