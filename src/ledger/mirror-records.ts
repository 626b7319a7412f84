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
