import type { Insertable } from 'kysely';
import type { PaymentIntent } from '../upstream/contract/index.ts';
import type { Executor } from '../db/index.ts';
import type { Observation } from './ledger-types.ts';
import type { PaymentIntentRecord } from './mirror-records.ts';
import { mirrorRecordBase } from './mirror-records.ts';
import type { PaymentIntentRow, PaymentIntentTable } from './payment-intent.table.ts';
import { utcMillis } from './utc-millis.ts';

export function paymentIntentColumns(
  intent: PaymentIntent,
  status: string,
  observation: Observation,
): Insertable<PaymentIntentTable> {
  return {
    id: intent.id,
    merchant_id: intent.merchantId,
    status,
    upstream_status: intent.status,
    amount: intent.amount,
    currency: intent.currency,
    mode: intent.mode,
    purchase_reference: intent.purchaseReference,
    customer_reference: intent.customerReference,
    sub_merchant_id: intent.subMerchantId ?? null,
    failure_code: intent.lastPaymentFailure?.code ?? null,
    failure_message: intent.lastPaymentFailure?.message ?? null,
    created_at: utcMillis(intent.createdAt, 'createdAt'),
    updated_at: utcMillis(intent.updatedAt, 'updatedAt'),
    raw: JSON.stringify(intent),
    first_seen_at: observation.observedAt,
    last_synced_at: observation.observedAt,
  };
}

export async function findPaymentIntent(
  db: Executor,
  id: string,
): Promise<PaymentIntentRecord | undefined> {
  const row = await db
    .selectFrom('payment_intents')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toPaymentIntentRecord(row);
}

export function toPaymentIntentRecord(row: PaymentIntentRow): PaymentIntentRecord {
  return {
    kind: 'payment_intent',
    ...mirrorRecordBase(row),
    merchantId: row.merchant_id,
    mode: row.mode,
    purchaseReference: row.purchase_reference,
    customerReference: row.customer_reference,
    subMerchantId: row.sub_merchant_id,
  };
}
