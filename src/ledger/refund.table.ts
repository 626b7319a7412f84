import type { Selectable } from 'kysely';
import type { RefundKind } from '../resources/index.ts';

/**
 * Mirror of both refund kinds: refunds of transfers (`GET /refunds/{id}`) and refunds of
 * payments (`GET /payments-refund/{id}/status`). Their ids are numbers from two services that
 * may overlap, so the key is (kind, id) with the id kept as text.
 */
export interface RefundTable {
  kind: RefundKind;
  id: string;
  /** Our monotonic status: never goes back from a terminal one (see docs/ledger.md). */
  status: string;
  upstream_status: string;
  amount: number;
  currency: string;
  /** The transfer (`tr_…`) or payment intent (`pi_…`) refunded, when the service says. */
  original_id: string | null;
  mode: string | null;
  reason: string | null;
  payment_method: string | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: string | null;
  updated_at: string;
  raw: string;
  first_seen_at: string;
  last_synced_at: string;
}

export type RefundRow = Selectable<RefundTable>;
