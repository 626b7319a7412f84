import type { Selectable } from 'kysely';

/** Mirror of the service's payment intents, one row per `pi_…`. Times are UTC ISO 8601 with ms. */
export interface PaymentIntentTable {
  id: string;
  merchant_id: string;
  /** Our monotonic status: never goes back from a terminal one (see docs/ledger.md). */
  status: string;
  /** What the service said last, even when `status` held on to a terminal state. */
  upstream_status: string;
  amount: number;
  currency: string;
  mode: string;
  purchase_reference: string;
  customer_reference: string;
  sub_merchant_id: string | null;
  failure_code: string | null;
  failure_message: string | null;
  /** The service's createdAt and updatedAt. */
  created_at: string;
  updated_at: string;
  /** The service's JSON, as parsed, so nothing it said is lost. */
  raw: string;
  first_seen_at: string;
  last_synced_at: string;
}

export type PaymentIntentRow = Selectable<PaymentIntentTable>;
