import type { WindowedOperationId } from '../upstream/index.ts';

/** The two lists the service lets us sweep by creation time. */
export type SweepKind = 'intents' | 'transfers';

export const SWEEP_KINDS: readonly SweepKind[] = ['intents', 'transfers'];

export interface ListStream {
  readonly sweepKind: SweepKind;
  readonly ledgerKind: 'payment_intent' | 'transfer';
  readonly operationId: WindowedOperationId;
}

export const LIST_STREAMS: Record<SweepKind, ListStream> = {
  intents: {
    sweepKind: 'intents',
    ledgerKind: 'payment_intent',
    operationId: 'listPaymentIntents',
  },
  transfers: { sweepKind: 'transfers', ledgerKind: 'transfer', operationId: 'listTransfers' },
};
