import type { ExpectationBreakKind, ExpectationState } from '../expectations.tables.ts';
import type { SettledItemKind, SettledLedgerItem } from '../../ledger/index.ts';
import type { ExpectationContent } from '../expectation-input.ts';

// The matching engine's words (docs/expectations.md, "Matching"): plain objects, no database.

export type MatchItemKind = SettledItemKind;
export type MatchRule = 'id' | 'reference' | 'amount_window';

/**
 * One expectation as the engine sees it: the merchant's content (without its metadata, which
 * never decides a match), its row id and its state.
 */
export type MatchableExpectation = Omit<ExpectationContent, 'metadata'> & {
  /** expectations.id */
  readonly id: number;
  readonly state: ExpectationState;
};

/** One settled item of the mirror, as the ledger reads it. */
export type SettledItem = SettledLedgerItem;

/** `off`, or the directions whose unclaimed settled items are `unexpected`. */
export type AllExpectedOption = 'off' | 'in' | 'out' | 'both';

export interface MatchOptions {
  /** @defaultValue `off` (PAYSYNC_EXPECTATIONS_ALL_EXPECTED) */
  readonly allExpected: AllExpectedOption;
}

/** Which item pays which expectation, how much of it, by which rule. */
export interface ExpectationMatch {
  readonly expectation: number;
  readonly itemKind: MatchItemKind;
  readonly itemId: string;
  /** The part of the item's amount that pays this expectation. */
  readonly amount: number;
  /** False when the item's currency is not the expectation's: it does not count as paid. */
  readonly sameCurrency: boolean;
  readonly rule: MatchRule;
  /** The item settled after the window. */
  readonly late: boolean;
  readonly settledAt: string;
}

export interface ExpectationStateOutcome {
  readonly expectation: number;
  readonly state: ExpectationState;
  /** The sum of the matches in the expectation's currency. */
  readonly matchedAmount: number;
}

export interface ExpectationBreak {
  readonly kind: ExpectationBreakKind;
  /** expectations.id; null for `unexpected`. */
  readonly expectation: number | null;
  readonly itemKind: MatchItemKind | null;
  readonly itemId: string | null;
  /** Settled minus expected, in minor units, where the break is about an amount. */
  readonly difference: number | null;
  readonly currency: string | null;
  readonly explanation: string;
  readonly suggestedAction: string;
  /** `kind:expectation:item`, the same on every run that finds it. */
  readonly dedupeKey: string;
}

export interface MatchResult {
  /** In canonical order: expectations', then items'. */
  readonly matches: readonly ExpectationMatch[];
  /** One per expectation that is neither cancelled nor resolved by hand. */
  readonly states: readonly ExpectationStateOutcome[];
  /** Sorted by dedupe key. */
  readonly breaks: readonly ExpectationBreak[];
}
