import { inboxEventsAbout, type InboxEventSummary } from '../inbox/index.ts';
import { kindOfId } from '../resources/index.ts';
import { discrepanciesFor } from './discrepancy.repository.ts';
import type { Executor } from '../db/index.ts';
import { journalsFor } from './journal.repository.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import type { DiscrepancySummary, JournalSummary, StatusChange } from './ledger-types.ts';
import type { MirrorRecord } from './mirror-records.ts';
import { findPaymentIntent } from './payment-intent.repository.ts';
import { findRefund } from './refund.repository.ts';
import { statusHistoryFor } from './status-history.repository.ts';
import { findTransfer } from './transfer.repository.ts';

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
  const record = await findRecord(db, id, options.kind);
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

async function findRecord(
  db: Executor,
  given: string,
  kind: LedgerResourceKind | undefined,
): Promise<MirrorRecord | undefined> {
  const prefixed = /^(refund|payment_refund):(.+)$/.exec(given);
  const id = prefixed?.[2] ?? given;
  const wanted = (prefixed?.[1] as LedgerResourceKind | undefined) ?? kind ?? kindFromId(id);
  switch (wanted) {
    case 'payment_intent':
      return findPaymentIntent(db, id);
    case 'transfer':
      return findTransfer(db, id);
    case 'refund':
    case 'payment_refund':
      return findRefund(db, wanted, id);
    case undefined:
      return (await findRefund(db, 'refund', id)) ?? (await findRefund(db, 'payment_refund', id));
  }
}

function kindFromId(id: string): LedgerResourceKind | undefined {
  const kind = kindOfId(id);
  return kind === 'payment_link' ? undefined : kind;
}

/** Webhooks may name a resource only by its client reference. */
function referencesOf(record: MirrorRecord): string[] {
  if (record.kind === 'transfer') return [record.reference];
  if (record.kind === 'payment_intent') return [record.purchaseReference];
  return [];
}
