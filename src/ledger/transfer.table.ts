import type { Selectable } from 'kysely';

/** Mirror of the service's transfers, one row per `tr_…`. Times are UTC ISO 8601 with ms. */
export interface TransferTable {
  id: string;
  merchant_id: string;
  /** Client-provided; the transfer list filters by it, so syncs look transfers up by it. */
  reference: string;
  /** Our monotonic status: never goes back from a terminal one (see docs/ledger.md). */
  status: string;
  /** What the service said last, even when `status` held on to a terminal state. */
  upstream_status: string;
  amount: number;
  currency: string;
  mode: string;
  /** 0 or 1: the same integer on both dialects. */
  is_irt: number;
  is_delegated: number;
  /** The fee array as JSON (each fee has its own currency). */
  fees: string;
  destination: string;
  description: string;
  provider_reference: string;
  failure_code: string | null;
  failure_message: string | null;
  created_at: string;
  updated_at: string;
  raw: string;
  first_seen_at: string;
  last_synced_at: string;
}

export type TransferRow = Selectable<TransferTable>;
