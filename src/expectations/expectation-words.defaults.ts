// The words of expectations, declared once here: their states and the kinds of break
// (docs/expectations.md, "States" and "Breaks"). A leaf of constants that imports nothing, so the
// configuration (src/config, the bottom layer) may read it directly (PAYSYNC_EXPECTATIONS_
// BREAK_VERDICT names break kinds), and the CLI defines its options with them without loading
// the component (issue 39; .dependency-cruiser.cjs names src/expectations/expectation-words.ts
// as an entry of its own).

/** Every state an expectation can be in (docs/expectations.md, "States"). */
export const EXPECTATION_STATES = [
  'open',
  'matched',
  'partially_matched',
  'overdue',
  'cancelled',
  'resolved_manually',
] as const;

/** Every kind of break (docs/expectations.md, "Breaks"). */
export const BREAK_KINDS = [
  'missing',
  'amount_mismatch',
  'currency_mismatch',
  'duplicate',
  'unexpected',
  'reversed_after_match',
  'late',
] as const;
