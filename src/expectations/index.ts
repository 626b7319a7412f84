/**
 * Expectations (issue 24, docs/expectations.md): what the merchant expected to be paid and to
 * pay, matched against what settled, with every break named and explained.
 */
export { BREAK_KINDS, EXPECTATION_STATES } from './expectations.tables.ts';
export type {
  ExpectationBreakKind,
  ExpectationBreakRow,
  ExpectationDirection,
  ExpectationHistoryRow,
  ExpectationMatchRow,
  ExpectationRow,
  ExpectationState,
  ExpectationTables,
} from './expectations.tables.ts';

// Loading and manual changes
export {
  canonicalJson,
  EXPECTATION_FIELDS,
  expectationContentHash,
  KINDS_BY_DIRECTION,
  parseExpectationInput,
  type ExpectationContent,
  type ExpectationInputOptions,
  type ExpectationParseResult,
  type ExpectationProblem,
  type ParsedExpectation,
} from './expectation-input.ts';
export {
  ExpectationError,
  requiredReason,
  requiredResolver,
  type ExpectationErrorCode,
  type ExpectationErrorKind,
  type ExpectationRefusal,
} from './expectation-error.ts';
export { cancelExpectation, type CancelOutcome } from './cancel-expectation.ts';
export {
  resolveExpectation,
  type ManualResolution,
  type ResolveExpectationOutcome,
} from './resolve-expectation.ts';
export {
  expectationView,
  findExpectationRow,
  listExpectations,
  requireExpectationRow,
  upsertExpectations,
  type ChangeOrigin,
  type ExpectationContext,
  type ExpectationView,
  type ListExpectationsFilter,
  type UpsertOutcome,
} from './expectation.repository.ts';
export { loadExpectations, type LoadOutcome } from './load-expectations.ts';
export { historyOf, type ExpectationHistoryView } from './expectation-history.ts';
export {
  breaksOf,
  resolveBreak,
  resolveBreaks,
  type BreakFilter,
  type BreakView,
  type BulkResolution,
  type ResolveBreakOutcome,
} from './resolve-breaks.ts';
export {
  showExpectation,
  type ExpectationDetail,
  type ExpectationMatchView,
} from './show-expectation.ts';
export {
  importExpectations,
  LISTED_BAD_ROWS,
  type BadRow,
  type ImportOptions,
  type ImportResult,
} from './import/import-expectations.ts';
export { openExpectationFile, type ExpectationFile } from './import/expectation-file.ts';
export { readCsvExpectations } from './import/read-csv-expectations.ts';
export { readJsonlExpectations } from './import/read-jsonl-expectations.ts';
export { ExpectationFileError, type SourceRow } from './import/source-row.ts';

// Ops door (the API and the dashboard)
export { listBreaks, type ListBreaksFilter } from './list-breaks.ts';
export { expectationCounts, type ExpectationCounts } from './expectation-counts.ts';

// Matching
export { matchExpectations, DEFAULT_MATCH_OPTIONS } from './matching/match-engine.ts';
export {
  markOverdue,
  matchAllExpectations,
  matchExpectationsById,
  matchSettledItems,
  type MatchingSettings,
  type OverdueCheck,
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

// The books: verdict, alerts, exports, report
export {
  expectationIdsOfItems,
  expectationPeriodReport,
  openBreaksDetectedIn,
  overdueExpectations,
  type ExpectationPeriodReport,
  type ExpectedMoney,
  type InstantWindow,
  type OverdueExpectation,
} from './expectation-books.ts';
