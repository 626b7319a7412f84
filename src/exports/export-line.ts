/** One journal line as every export format sees it. Money is integer minor units. */
export interface ExportLine {
  readonly journalId: number;
  readonly lineNo: number;
  /** The service's time of the booked state, UTC ISO 8601 with ms. */
  readonly effectiveAt: string;
  /** When paysync booked it. */
  readonly postedAt: string;
  readonly resourceKind: string;
  readonly resourceId: string;
  /** The service's reference: a transfer's `reference`, a payment intent's purchase reference. */
  readonly reference: string | null;
  readonly description: string;
  /**
   * The journal's entry type, except for a late change to a closed period, which the exports
   * present as an `adjustment` (the ledger keeps its own type: see `settlementKey`).
   */
  readonly entryType: string;
  readonly settlementKey: string;
  /** The journal a reversal reverses. */
  readonly reverses: number | null;
  readonly account: string;
  readonly currency: string;
  /** Signed: debit positive, credit negative. */
  readonly amount: number;
  /** For a late change: the closed period it touched (`YYYY-MM`); else null. */
  readonly lateChangeOf: string | null;
  /** For a late change: when it really happened; `effectiveAt` is where it was booked. */
  readonly originalEffectiveAt: string | null;
  /** For a late change: the original journal it adjusts (the one a late reversal reverses). */
  readonly adjusts: number | null;
  /** The latest receipt's sha256 of the resource, when the receipts table has one. */
  readonly receiptSha256: string | null;
  /**
   * The merchant's ids of the expectations the journal's item pays (docs/expectations.md),
   * sorted and joined with `;` (several for many-to-one); null when it pays none.
   */
  readonly expectationId: string | null;
}

/** Half-open `[from, to)` on journal `effective_at`, UTC ISO strings. */
export interface ExportWindow {
  readonly from: string;
  readonly to: string;
}
