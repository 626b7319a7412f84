import type { Generated, Selectable } from 'kysely';
import { BREAK_KINDS, EXPECTATION_STATES } from './expectation-words.defaults.ts';

// The expectations' tables (migrations/0018_expectations.ts, docs/expectations.md). Money is
// integer minor units; times are UTC ISO 8601 with milliseconds; JSON columns are text.

/** `in`: money the merchant should receive; `out`: money it should pay. */
export type ExpectationDirection = 'in' | 'out';

export type ExpectationState = (typeof EXPECTATION_STATES)[number];

// The states and the kinds of break are declared in expectation-words.defaults.ts (the settings
// name break kinds too, and config may read only a leaf of constants).
export { BREAK_KINDS, EXPECTATION_STATES };
export type ExpectationBreakKind = (typeof BREAK_KINDS)[number];

/** One thing the merchant expected, by its own id. */
export interface ExpectationTable {
  id: Generated<number>;
  environment: string;
  /** The merchant's own id: imports are idempotent by it. */
  expectation_id: string;
  direction: ExpectationDirection;
  /** JSON array of item kinds that may pay it; null: every kind of its direction. */
  item_kinds: string | null;
  currency: string;
  /** Integer minor units; an exact amount has min = max. */
  amount_min: number;
  amount_max: number;
  window_from: string;
  window_to: string;
  reference: string | null;
  /** The service's item id, when the merchant knows it. */
  item_id: string | null;
  /** The payer's or recipient's number. */
  counterparty: string | null;
  purchase_reference: string | null;
  description_pattern: string | null;
  /** 0 or 1: may be paid by several items (one-to-many). */
  allow_split: number;
  /** Expectations sharing a group may be paid together by one item (many-to-one). */
  match_group: string | null;
  /** JSON object: the merchant's metadata, kept and echoed. */
  metadata: string;
  state: ExpectationState;
  matched_amount: number;
  version: number;
  content_hash: string;
  resolved_by: string | null;
  resolved_at: string | null;
  resolution_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** Every change of an expectation, with who, when and where from. */
export interface ExpectationHistoryTable {
  id: Generated<number>;
  /** expectations.id */
  expectation: number;
  version: number;
  change: 'created' | 'updated' | 'cancelled' | 'matched' | 'unmatched' | 'overdue' | 'resolved';
  /** `import:<file name>`, `api`, `cli`, `matching`, `dashboard`. */
  source: string;
  actor: string | null;
  before: string | null;
  after: string | null;
  at: string;
}

/** Which settled item pays which expectation, and how much of it. */
export interface ExpectationMatchTable {
  id: Generated<number>;
  /** expectations.id */
  expectation: number;
  item_kind: string;
  item_id: string;
  amount: number;
  rule: 'id' | 'reference' | 'amount_window';
  /** 0 or 1: the item settled after the window. */
  late: number;
  settled_at: string;
  matched_at: string;
}

/** What did not match as expected, explained, with the action to take. */
export interface ExpectationBreakTable {
  id: Generated<number>;
  environment: string;
  /** expectations.id; null for an `unexpected` item. */
  expectation: number | null;
  item_kind: string | null;
  item_id: string | null;
  kind: ExpectationBreakKind;
  /** Settled minus expected, in minor units, where the break is about an amount. */
  difference: number | null;
  currency: string | null;
  explanation: string;
  suggested_action: string;
  state: 'open' | 'resolved';
  resolved_by: string | null;
  resolved_at: string | null;
  resolution_reason: string | null;
  dedupe_key: string;
  detected_at: string;
  updated_at: string;
}

export type ExpectationRow = Selectable<ExpectationTable>;
export type ExpectationHistoryRow = Selectable<ExpectationHistoryTable>;
export type ExpectationMatchRow = Selectable<ExpectationMatchTable>;
export type ExpectationBreakRow = Selectable<ExpectationBreakTable>;

export interface ExpectationTables {
  expectations: ExpectationTable;
  expectation_history: ExpectationHistoryTable;
  expectation_matches: ExpectationMatchTable;
  expectation_breaks: ExpectationBreakTable;
}
