import type { PaymentIntent, PaymentRefund, Refund, Transfer } from '../upstream/contract/index.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import type { JournalLine, Observation } from './ledger-types.ts';
import type { MirrorColumns } from './mirror-writer.ts';
import type { MirrorKey } from './mirror-version.repository.ts';
import { paymentIntentColumns } from './payment-intent.repository.ts';
import { paymentRefundColumns, transferRefundColumns } from './refund.repository.ts';
import {
  paymentIntentSettlementLines,
  paymentRefundSettlementLines,
  transferRefundSettlementLines,
  transferSettlementLines,
} from './settlement-lines.ts';
import { transferColumns } from './transfer.repository.ts';
import { utcMillis } from './utc-millis.ts';

/** One fetched state of one resource, as a sync job or a list page hands it to the ledger. */
export type LedgerFetchedState =
  | { readonly kind: 'payment_intent'; readonly state: PaymentIntent }
  | { readonly kind: 'transfer'; readonly state: Transfer }
  | { readonly kind: 'refund'; readonly state: Refund }
  | { readonly kind: 'payment_refund'; readonly state: PaymentRefund };

/** One entry of `applyBatch`: a fetched state and how it was observed. */
export interface BatchEntry {
  readonly fetched: LedgerFetchedState;
  readonly observation: Observation;
}

/** What settlement lines may depend on beyond the state itself, answered from the mirror. */
export interface SettlementContext {
  /** Whether the mirrored transfer `id` is IRT; false when the mirror does not hold it. */
  transferIsIrt(id: string): boolean;
}

/** One fetched state of one resource, reduced to what the rules need. */
export interface ObservedState {
  readonly kind: LedgerResourceKind;
  readonly id: string;
  readonly upstreamStatus: string;
  /** The service's updatedAt, UTC ms. */
  readonly updatedAt: string;
  readonly mirror: MirrorKey;
  /** The mirror row of this state with the given status, for the one mirror writer. */
  columns(status: string, observation: Observation): MirrorColumns[MirrorKey['table']];
  /** What a settlement of this state books. */
  settlementLines(context: SettlementContext): JournalLine[];
  /** One line for people reading the journal, e.g. `transfer tr_1 successful`. */
  readonly description: string;
  /** The transfer a refund refunds, whose IRT flag its settlement reads. */
  readonly refundedTransferId?: string;
  /** A transfer's own IRT flag, which the mirror holds once it takes this state. */
  readonly isIrt?: boolean;
}

/** What only a kind knows of its state: all of {@link ObservedState} but the status and time. */
type KindView = Omit<ObservedState, 'upstreamStatus' | 'updatedAt'>;

/** A state's view: the service's status and updatedAt, read alike for every kind, and its own. */
function observed(
  state: { readonly status: string; readonly updatedAt: string },
  { kind, id, ...own }: KindView,
): ObservedState {
  return {
    kind,
    id,
    upstreamStatus: state.status,
    updatedAt: utcMillis(state.updatedAt, 'updatedAt'),
    ...own,
  };
}

/** The rules' view of a fetched state, per kind. */
export function observedStateOf(fetched: LedgerFetchedState): ObservedState {
  switch (fetched.kind) {
    case 'payment_intent': {
      const intent = fetched.state;
      return observed(intent, {
        kind: 'payment_intent',
        id: intent.id,
        mirror: { table: 'payment_intents', id: intent.id },
        columns: (status, seen) => paymentIntentColumns(intent, status, seen),
        settlementLines: () => paymentIntentSettlementLines(intent),
        description: `payment ${intent.id} (${intent.purchaseReference}) ${intent.status}`,
      });
    }
    case 'transfer': {
      const transfer = fetched.state;
      return observed(transfer, {
        kind: 'transfer',
        id: transfer.id,
        mirror: { table: 'transfers', id: transfer.id },
        columns: (status, seen) => transferColumns(transfer, status, seen),
        settlementLines: () => transferSettlementLines(transfer),
        description: `transfer ${transfer.id} (${transfer.reference}) ${transfer.status}${transfer.isIrt ? ', IRT' : ''}`,
        isIrt: transfer.isIrt,
      });
    }
    case 'refund': {
      const refund = fetched.state;
      const id = String(refund.id);
      return observed(refund, {
        kind: 'refund',
        id,
        mirror: { table: 'refunds', kind: 'refund', id },
        columns: (status, seen) => transferRefundColumns(refund, status, seen),
        // The money goes back to the account the transfer was paid from.
        settlementLines: (context) =>
          transferRefundSettlementLines(refund, context.transferIsIrt(refund.transactionId)),
        description: `refund ${id} of transfer ${refund.transactionId} ${refund.status}`,
        refundedTransferId: refund.transactionId,
      });
    }
    case 'payment_refund': {
      const paymentRefund = fetched.state;
      const id = String(paymentRefund.id);
      return observed(paymentRefund, {
        kind: 'payment_refund',
        id,
        mirror: { table: 'refunds', kind: 'payment_refund', id },
        columns: (status, seen) => paymentRefundColumns(paymentRefund, status, seen),
        settlementLines: () => paymentRefundSettlementLines(paymentRefund),
        description: `payment refund ${id}${paymentRefund.paymentIntentId ? ` of ${paymentRefund.paymentIntentId}` : ''} ${paymentRefund.status}`,
      });
    }
  }
}
