/**
 * Expectations: what the merchant expected to receive and to pay, matched against what
 * settled, with every break named (docs/expectations.md). The only code naming their tables.
 */
export type {
  ExpectationBreakKind,
  ExpectationDirection,
  ExpectationRow,
  ExpectationState,
} from './expectations.tables.ts';

// Matching
export { matchExpectations, DEFAULT_MATCH_OPTIONS } from './matching/match-engine.ts';
export {
  markOverdue,
  matchAllExpectations,
  matchExpectationsById,
  matchSettledItems,
  type MatchingSettings,
} from './matching/match-expectations-run.ts';
export { applyMatchResult, type MatchScope, type MatchWrites } from './matching/match-store.ts';
export { matchableExpectation } from './matching/matchable-expectation.ts';
export type {
  AllExpectedOption,
  ExpectationBreak,
  ExpectationMatch,
  ExpectationStateOutcome,
  MatchableExpectation,
  MatchItemKind,
  MatchOptions,
  MatchResult,
  MatchRule,
  SettledItem,
} from './matching/match-types.ts';
