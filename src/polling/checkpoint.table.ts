/**
 * How far a sweep or a backfill got, per stream: every item of the stream created before
 * `position` has been applied. Written in the same transaction as the items it covers.
 */
export interface PollingCheckpointTable {
  /** e.g. `sweep:payment_intent:live`, `backfill:transfer:live:<from>..<to>`. */
  stream: string;
  /** UTC ISO 8601 with milliseconds, exclusive. */
  position: string;
  /** JSON: the stream's own running totals (a backfill's summary so far). */
  detail: string | null;
  updated_at: string;
}
