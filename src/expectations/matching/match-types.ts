import type {
  ExpectationBreakKind,
  ExpectationDirection,
  ExpectationState,
} from '../expectations.tables.ts';

// The matching engine's words (docs/expectations.md, "Matching"): plain objects, no database.

export type MatchItemKind = 'payment_intent' | 'transfer' | 'refund' | 'payment_refund';
export type MatchRule = 'id' | 'reference' | 'amount_window';

/** One expectation as the engine sees it: the row's matching fields. */
export interface MatchableExpectation {
  /** expectations.id */
  readonly id: number;
  /** The merchant's own id. */
  readonly expectation_id: string;
  readonly direction: ExpectationDirection;
  /** Kinds that may pay it; null: every kind of its direction. */
  readonly item_kinds: readonly string[] | null;
  readonly currency: string;
  /** Integer minor units; an exact amount has min = max. */
  readonly amount_min: number;
  readonly amount_max: number;
  readonly window_from: string;
  readonly window_to: string;
  readonly reference: string | null;
  readonly item_id: string | null;
  readonly counterparty: string | null;
  readonly purchase_reference: string | null;
  readonly description_pattern: string | null;
  readonly allow_split: boolean;
  readonly match_group: string | null;
  readonly state: ExpectationState;
}

/** One settled item of the mirror (see SettledLedgerItem in src/ledger). */
export interface SettledItem {
  readonly kind: MatchItemKind;
  readonly id: string;
  readonly direction: ExpectationDirection;
  readonly currency: string;
  readonly amount: number;
  readonly settledAt: string;
  readonly reference: string | null;
  readonly purchaseReference: string | null;
  readonly counterparty: string | null;
  readonly description: string | null;
  readonly originalId: string | null;
  readonly status: string;
}

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
