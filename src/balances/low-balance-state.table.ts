import type { Selectable } from 'kysely';

/** Whether an account is under its low-balance threshold, so a crossing is raised once. */
export interface LowBalanceStateTable {
  environment: string;
  account_type: string;
  currency: string;
  /** 1 while the last snapshot was under the threshold. */
  below: number;
  threshold: number;
  /** The balance of the snapshot that last changed `below`. */
  amount: number;
  changed_at: string;
  /** How many times the account went under. */
  crossings: number;
}

export type LowBalanceStateRow = Selectable<LowBalanceStateTable>;
