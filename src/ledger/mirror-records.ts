import type { RefundKind } from '../resources/index.ts';

/** Fields every mirrored resource has. Times are UTC ISO 8601 with milliseconds. */
interface MirrorRecordBase {
  readonly id: string;
  /** Our monotonic status (see docs/ledger.md). */
  readonly status: string;
  /** What the service said last. */
  readonly upstreamStatus: string;
  readonly amount: number;
  readonly currency: string;
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  readonly createdAt: string | null;
  /** The service's updatedAt of the state the mirror holds. */
  readonly updatedAt: string;
  readonly firstSeenAt: string;
  readonly lastSyncedAt: string;
  /** The service's JSON as last taken. */
  readonly raw: unknown;
}

/** The columns behind {@link MirrorRecordBase}, as every mirror table stores them. */
interface MirrorRowBase {
  readonly id: string;
  readonly status: string;
  readonly upstream_status: string;
  readonly amount: number;
  readonly currency: string;
  readonly failure_code: string | null;
  readonly failure_message: string | null;
  readonly created_at: string | null;
  readonly updated_at: string;
  readonly first_seen_at: string;
  readonly last_synced_at: string;
  readonly raw: string;
}

/** The fields every mirror record has, read from its row: one reading for the three tables. */
export function mirrorRecordBase(row: MirrorRowBase): MirrorRecordBase {
  return {
    id: row.id,
    status: row.status,
    upstreamStatus: row.upstream_status,
    amount: row.amount,
    currency: row.currency,
    failureCode: row.failure_code,
    failureMessage: row.failure_message,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    firstSeenAt: row.first_seen_at,
    lastSyncedAt: row.last_synced_at,
    raw: JSON.parse(row.raw) as unknown,
  };
}

export interface PaymentIntentRecord extends MirrorRecordBase {
  readonly kind: 'payment_intent';
  readonly merchantId: string;
  readonly mode: string;
  readonly purchaseReference: string;
  readonly customerReference: string;
  readonly subMerchantId: string | null;
}

export interface TransferFeeRecord {
  readonly id: string;
  readonly amount: number;
  readonly currency: string;
  readonly label: string | null;
}

export interface TransferRecord extends MirrorRecordBase {
  readonly kind: 'transfer';
  readonly merchantId: string;
  readonly reference: string;
  readonly mode: string;
  readonly isIrt: boolean;
  readonly isDelegated: boolean;
  readonly fees: readonly TransferFeeRecord[];
  readonly destination: Readonly<Record<string, unknown>>;
  readonly description: string;
  readonly providerReference: string;
}

export interface RefundRecord extends MirrorRecordBase {
  readonly kind: RefundKind;
  /** The refunded transfer (`tr_…`) or payment intent (`pi_…`), when known. */
  readonly originalId: string | null;
  readonly mode: string | null;
  readonly reason: string | null;
  readonly paymentMethod: string | null;
}

export type MirrorRecord = PaymentIntentRecord | TransferRecord | RefundRecord;
