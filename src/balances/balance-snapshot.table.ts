import type { Generated, Selectable } from 'kysely';

export type SnapshotKind = 'scheduled' | 'end_of_day' | 'manual';

/** The service's balance of one account and currency at one instant, with the raw response. */
export interface BalanceSnapshotTable {
  id: Generated<number>;
  environment: string;
  /** The service's account type: collection, transfer, transfer-irt, cross-border. */
  account_type: string;
  currency: string;
  /** Minor units. May be zero or negative. */
  amount: number;
  /** The instant the balance is for (the response's date, or the `date` asked). */
  as_of: string;
  /** When paysync asked. */
  taken_at: string;
  kind: SnapshotKind;
  /** The whole response body as received. */
  raw: string;
}

export type BalanceSnapshotRow = Selectable<BalanceSnapshotTable>;
