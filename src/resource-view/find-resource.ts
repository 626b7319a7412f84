import { inboxEventsAbout, type InboxEventSummary } from '../inbox/resource-reads.ts';
import {
  discrepanciesFor,
  findMirrorRecord,
  journalsFor,
  refundsOf,
  statusHistoryFor,
  type DiscrepancySummary,
  type Executor,
  type JournalSummary,
  type LedgerResourceKind,
  type MirrorRecord,
  type StatusChange,
} from '../ledger/resource-reads.ts';

/** Everything `paysync show <id>` prints about one resource. */
export interface ResourceView {
  readonly record: MirrorRecord;
  readonly history: readonly StatusChange[];
  readonly journals: readonly JournalSummary[];
  readonly discrepancies: readonly DiscrepancySummary[];
  readonly inboxEvents: readonly InboxEventSummary[];
  /** Every mirrored refund of this transfer or payment intent, oldest first (none for a refund). */
  readonly refunds: readonly ItemRefund[];
  /** Every reversal journal of this item: a settlement it booked and the ledger undid. */
  readonly reversals: readonly ItemReversal[];
  /** For a refund: the transfer or payment intent it refunds, when the service named one. */
  readonly refundOf: RefundedItem | null;
}

/** One refund of the item shown, and what the ledger booked for it. */
export interface ItemRefund {
  readonly kind: 'refund' | 'payment_refund';
  readonly id: string;
  readonly status: string;
  readonly amount: number;
  readonly currency: string;
  readonly reason: string | null;
  readonly createdAt: string | null;
  readonly updatedAt: string;
  /** When its money moved: the effective time of its last settlement journal; null if none. */
  readonly bookedAt: string | null;
  /** When that settlement was reversed (the refund failed after all); null if it stands. */
  readonly reversedAt: string | null;
  /** Its journals (settlements and reversals), for `paysync show <refund id>`. */
  readonly journalIds: readonly number[];
}

/** A reversal journal of the item: a settlement undone because the service went back on it. */
export interface ItemReversal {
  readonly journalId: number;
  /** `reversal-<n>`, undoing `settlement-<n>`. */
  readonly settlementKey: string;
  readonly reversesJournalId: number | null;
  /** The money that went back, per currency: the debits of the reversed settlement. */
  readonly amounts: readonly { readonly amount: number; readonly currency: string }[];
  readonly effectiveAt: string;
  readonly postedAt: string;
}

/** The item a refund refunds, as the mirror holds it; `mirrored` false when it holds none. */
export interface RefundedItem {
  readonly kind: 'transfer' | 'payment_intent';
  readonly id: string;
  readonly mirrored: boolean;
  readonly status: string | null;
  readonly amount: number | null;
  readonly currency: string | null;
}

export interface FindResourceOptions {
  /** Which kind a numeric id is; refund ids of both kinds are numbers. */
  readonly kind?: LedgerResourceKind;
}

/**
 * One resource by id: `pi_…`, `tr_…`, or a refund id (`123`, or `refund:123` /
 * `payment_refund:123` to say which). A bare number is looked up as a transfer refund, then
 * as a payment refund. Undefined when the mirror has never seen it.
 */
export async function findResource(
  db: Executor,
  id: string,
  options: FindResourceOptions = {},
): Promise<ResourceView | undefined> {
  const record = await findMirrorRecord(db, id, options.kind);
  if (!record) return undefined;
  const journals = await journalsFor(db, record.kind, record.id);
  return {
    record,
    history: await statusHistoryFor(db, record.kind, record.id),
    journals,
    discrepancies: await discrepanciesFor(db, record.kind, record.id),
    inboxEvents: await inboxEventsAbout(db, {
      kind: record.kind,
      id: record.id,
      references: referencesOf(record),
    }),
    refunds: await refundsOfItem(db, record),
    reversals: reversalsIn(journals),
    refundOf: await refundedItem(db, record),
  };
}

const REFUND_KIND_OF = { transfer: 'refund', payment_intent: 'payment_refund' } as const;
const REFUNDED_KIND_OF = { refund: 'transfer', payment_refund: 'payment_intent' } as const;

async function refundsOfItem(db: Executor, record: MirrorRecord): Promise<ItemRefund[]> {
  if (record.kind !== 'transfer' && record.kind !== 'payment_intent') return [];
  const refunds = await refundsOf(db, REFUND_KIND_OF[record.kind], record.id);
  const listed: ItemRefund[] = [];
  for (const refund of refunds) {
    if (refund.kind !== 'refund' && refund.kind !== 'payment_refund') continue;
    const journals = await journalsFor(db, refund.kind, refund.id);
    const settlement = journals.filter((j) => j.entryType === 'settlement').at(-1);
    const reversal = journals.filter((j) => j.entryType === 'reversal').at(-1);
    const reversed =
      settlement !== undefined && reversal !== undefined && reversal.id > settlement.id;
    listed.push({
      kind: refund.kind,
      id: refund.id,
      status: refund.status,
      amount: refund.amount,
      currency: refund.currency,
      reason: refund.reason,
      createdAt: refund.createdAt,
      updatedAt: refund.updatedAt,
      bookedAt: settlement?.effectiveAt ?? null,
      reversedAt: reversed ? reversal.effectiveAt : null,
      journalIds: journals.map((j) => j.id),
    });
  }
  return listed;
}

function reversalsIn(journals: readonly JournalSummary[]): ItemReversal[] {
  return journals
    .filter((j) => j.entryType === 'reversal')
    .map((j) => {
      const back = new Map<string, number>();
      for (const line of j.lines) {
        if (line.amount < 0) back.set(line.currency, (back.get(line.currency) ?? 0) - line.amount);
      }
      return {
        journalId: j.id,
        settlementKey: j.settlementKey,
        reversesJournalId: j.reversesJournalId,
        amounts: [...back].map(([currency, amount]) => ({ amount, currency })),
        effectiveAt: j.effectiveAt,
        postedAt: j.postedAt,
      };
    });
}

async function refundedItem(db: Executor, record: MirrorRecord): Promise<RefundedItem | null> {
  if (record.kind !== 'refund' && record.kind !== 'payment_refund') return null;
  if (record.originalId === null) return null;
  const kind = REFUNDED_KIND_OF[record.kind];
  const original = await findMirrorRecord(db, record.originalId, kind);
  return {
    kind,
    id: record.originalId,
    mirrored: original !== undefined,
    status: original?.status ?? null,
    amount: original?.amount ?? null,
    currency: original?.currency ?? null,
  };
}

/** Webhooks may name a resource only by its client reference. */
function referencesOf(record: MirrorRecord): string[] {
  if (record.kind === 'transfer') return [record.reference];
  if (record.kind === 'payment_intent') return [record.purchaseReference];
  return [];
}
