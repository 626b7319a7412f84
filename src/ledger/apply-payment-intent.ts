import type { PaymentIntent } from '../upstream/contract/index.ts';
import { applyObservation } from './apply-observation.ts';
import type { Executor } from '../db/index.ts';
import type { ApplyOutcome, Observation } from './ledger-types.ts';
import { paymentIntentColumns } from './payment-intent.repository.ts';
import { paymentIntentSettlementLines } from './settlement-lines.ts';
import { utcMillis } from './utc-millis.ts';

/** Applies a fetched payment intent: mirror, history, and its settlement when successful. */
export function applyPaymentIntent(
  db: Executor,
  intent: PaymentIntent,
  observation: Observation,
): Promise<ApplyOutcome> {
  return applyObservation(
    db,
    {
      kind: 'payment_intent',
      id: intent.id,
      upstreamStatus: intent.status,
      updatedAt: utcMillis(intent.updatedAt, 'updatedAt'),
      mirror: { table: 'payment_intents', id: intent.id },
      columns: (status, seen) => paymentIntentColumns(intent, status, seen),
      settlementLines: async () => paymentIntentSettlementLines(intent),
      description: `payment ${intent.id} (${intent.purchaseReference}) ${intent.status}`,
    },
    observation,
  );
}
