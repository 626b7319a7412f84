import { inboxEventsAbout, type InboxEventSummary } from '../inbox/resource-reads.ts';
import {
  discrepanciesFor,
  findMirrorRecord,
  journalsFor,
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
  return {
    record,
    history: await statusHistoryFor(db, record.kind, record.id),
    journals: await journalsFor(db, record.kind, record.id),
    discrepancies: await discrepanciesFor(db, record.kind, record.id),
    inboxEvents: await inboxEventsAbout(db, {
      kind: record.kind,
      id: record.id,
      references: referencesOf(record),
    }),
  };
}

/** Webhooks may name a resource only by its client reference. */
function referencesOf(record: MirrorRecord): string[] {
  if (record.kind === 'transfer') return [record.reference];
  if (record.kind === 'payment_intent') return [record.purchaseReference];
  return [];
}
