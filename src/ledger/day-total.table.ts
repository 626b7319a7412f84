import type { Selectable } from 'kysely';
import type { AccountName } from './accounts.ts';

/**
 * Per UTC day of the journals' `effective_at`, account and currency, the sum of the lines
 * booked (migration 0014, docs/ledger.md "Day totals"). Kept by the ledger in the same
 * transaction as the lines; a row exists exactly where lines exist, zero sums included.
 */
export interface LedgerDayTotalTable {
  /** `YYYY-MM-DD`, the first ten characters of the journals' `effective_at`. */
  day: string;
  account: AccountName;
  currency: string;
  /** Signed integer minor units: debit positive, credit negative. */
  amount: number;
}

export type LedgerDayTotalRow = Selectable<LedgerDayTotalTable>;
