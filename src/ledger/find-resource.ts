import { discrepanciesFor } from './discrepancy.repository.ts';
import type { Executor } from './executor.ts';
import { journalsFor } from './journal.repository.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import type { DiscrepancySummary, JournalSummary, StatusChange } from './ledger-types.ts';
import type { MirrorRecord } from './mirror-records.ts';
import { findPaymentIntent } from './payment-intent.repository.ts';
import { findRefund } from './refund.repository.ts';
import { statusHistoryFor } from './status-history.repository.ts';
import { findTransfer } from './transfer.repository.ts';

/** A webhook in the inbox that named the resource (by id or by reference). */
export interface InboxEventSummary {
  readonly inboxId: number;
  readonly eventId: string | null;
  readonly eventType: string | null;
  readonly status: string;
  readonly receivedAt: string;
  readonly processedAt: string | null;
  readonly attempts: number;
  readonly lastError: string | null;
  /** The raw body as UTF-8 text. */
  readonly body: string;
}

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
  const references = referencesOf(record);
  const events = await db
    .selectFrom('webhook_inbox')
    .select([
      'id',
      'event_id',
      'event_type',
      'status',
      'received_at',
      'processed_at',
      'attempts',
      'last_error',
      'raw_body',
    ])
    .where((eb) =>
      eb.or([
        eb('resource_id', '=', record.id),
        ...(references.length > 0
          ? [
              eb.and([
                eb('resource_reference', 'in', references),
                eb.or([eb('resource_kind', '=', record.kind), eb('resource_kind', 'is', null)]),
              ]),
            ]
          : []),
      ]),
    )
    .orderBy('received_at')
    .orderBy('id')
    .execute();
  return {
    record,
    history: await statusHistoryFor(db, record.kind, record.id),
    journals: await journalsFor(db, record.kind, record.id),
    discrepancies: await discrepanciesFor(db, record.kind, record.id),
    inboxEvents: events.map((row) => ({
      inboxId: row.id,
      eventId: row.event_id,
      eventType: row.event_type,
      status: row.status,
      receivedAt: row.received_at,
      processedAt: row.processed_at,
      attempts: row.attempts,
      lastError: row.last_error,
      body: Buffer.from(row.raw_body).toString('utf8'),
    })),
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
  if (id.startsWith('pi_')) return 'payment_intent';
  if (id.startsWith('tr_')) return 'transfer';
  return undefined;
}

/** Webhooks may name a resource only by its client reference. */
function referencesOf(record: MirrorRecord): string[] {
  if (record.kind === 'transfer') return [record.reference];
  if (record.kind === 'payment_intent') return [record.purchaseReference];
  return [];
}
