import type { JournalSummary } from './ledger-types.ts';

export interface BookingState {
  readonly settlements: number;
  readonly reversals: number;
  /** The settlement the books currently hold, when one is not yet reversed. */
  readonly active: JournalSummary | undefined;
}

/**
 * What the journal says about one resource. Settlements and reversals alternate
 * (`settlement-1`, `reversal-1`, `settlement-2`, …), so the item is booked when there is one
 * more settlement than reversals, and the next keys follow from the counts.
 */
export function bookingOf(journals: readonly JournalSummary[]): BookingState {
  const settlements = journals.filter((j) => j.entryType === 'settlement');
  const reversals = journals.filter((j) => j.entryType === 'reversal').length;
  return {
    settlements: settlements.length,
    reversals,
    active: settlements.length > reversals ? settlements.at(-1) : undefined,
  };
}
