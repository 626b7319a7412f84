import type { Selectable } from 'kysely';
import type { AccountName } from './accounts.ts';

/**
 * Who booked an opening balance or an adjustment, and why. One row per such journal; the
 * journal itself holds the money.
 */
export interface LedgerAdjustmentTable {
  journal_id: number;
  kind: 'opening' | 'adjustment';
  environment: string;
  /** The `service:*` account the money is on. */
  account: AccountName;
  /** `equity:opening-balances` or an `adjustments:*` account. */
  counter_account: AccountName;
  currency: string;
  /** Signed: positive adds money to `account`. */
  amount: number;
  reason: string;
  booked_by: string;
  effective_at: string;
  created_at: string;
}

export type LedgerAdjustmentRow = Selectable<LedgerAdjustmentTable>;
