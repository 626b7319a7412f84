import { sql } from 'kysely';
import { runBulk, type BulkStatement, type Executor } from '../db/index.ts';
import type { InboxEvent, InsertInboxResult, NewInboxEvent } from './inbox-event.ts';
import type { InboxStatus, WebhookInboxRow } from './inbox.table.ts';

function toInboxEvent(row: WebhookInboxRow): InboxEvent {
  return {
    id: row.id,
    dedupeKey: row.dedupe_key,
    eventId: row.event_id,
    eventType: row.event_type,
    rawBody: Buffer.from(row.raw_body),
    headers: JSON.parse(row.headers) as Record<string, string>,
    bodyPrunedAt: row.body_pruned_at,
    receivedAt: row.received_at,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    processedAt: row.processed_at,
    resourceKind: row.resource_kind,
    resourceId: row.resource_id,
    resourceReference: row.resource_reference,
    traceId: row.trace_id ?? null,
  };
}

/**
 * Stores one event unless its dedupe key is already there. The UNIQUE key decides, not an
 * in-memory check, so two receivers racing on one redelivery store it once. On a duplicate
 * the existing row is left exactly as it was.
 */
export async function insertInboxEvent(
  db: Executor,
  event: NewInboxEvent,
): Promise<InsertInboxResult> {
  const [result] = await insertInboxEvents(db, [event]);
  return result!;
}

/** Rows per statement of the body-key release and the lookup of duplicates. */
const ROWS_PER_STATEMENT = 500;

/**
 * The receiver's group commit, compiled once per dialect and row count (issue 21, design
 * point 4). A stored key is left as it is: the UNIQUE key decides, and `returning` names only
 * the rows this statement added.
 */
const INSERT_EVENTS: BulkStatement = {
  table: 'webhook_inbox',
  columns: [
    'dedupe_key',
    'event_id',
    'event_type',
    'raw_body',
    'headers',
    'received_at',
    'status',
    'processed_at',
    'resource_kind',
    'resource_id',
    'resource_reference',
    'trace_id',
  ],
  tail: 'on conflict (dedupe_key) do nothing returning id, dedupe_key',
};

const isBodyKey = (key: string) => key.startsWith('sha256:');

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size)
    out.push(items.slice(start, start + size));
  return out;
}

/**
 * An event without an id is keyed by the hash of its bytes (`sha256:<hex>`). Such a body is
 * a notification, a hint to look again: the same bytes sent later may announce a change (a
 * `{"resourceId":"tr_…"}` sent at creation and again at success). So the row holding a body
 * key absorbs repeats only while it is still `received`, waiting for its first pick-up: its
 * ingest, and therefore its fetch, will come after the repeat anyway. Once picked up
 * (processing, processed, failed, unclassified), the row hands its key on, renamed
 * `sha256:<hex>@<row id>`, and the repeat is stored as a new row with a new id. A new row,
 * not the old one reopened: a sync closes only rows with ids below the highest id it read
 * before fetching, so only a new id guarantees that a fetch begins after the repeat arrived.
 * Booking twice is not a risk: the ledger applies fetched state under its unique keys.
 */
async function releasePickedUpBodyKeys(db: Executor, keys: readonly string[]): Promise<void> {
  for (const batch of chunks(keys, ROWS_PER_STATEMENT)) {
    await db
      .updateTable('webhook_inbox')
      .set({ dedupe_key: sql<string>`dedupe_key || '@' || cast(id as text)` })
      .where('dedupe_key', 'in', batch)
      .where('status', '<>', 'received')
      .execute();
  }
}

/**
 * {@link insertInboxEvent} for many events (the receiver's group commit, a sender's batch),
 * results in the order given, all in one commit: inside the caller's transaction, or in one
 * this opens when several statements are needed. An event whose key is already stored, or
 * appears earlier in the same list, is a duplicate carrying the stored row's id. An event
 * without an id repeats a stored one only while that one awaits pick-up; see
 * {@link releasePickedUpBodyKeys}.
 */
export async function insertInboxEvents(
  db: Executor,
  events: readonly NewInboxEvent[],
): Promise<InsertInboxResult[]> {
  if (events.length === 0) return [];
  const bodyKeys = [...new Set(events.map((e) => e.dedupeKey).filter(isBodyKey))];
  const statements = (bodyKeys.length > 0 ? 1 : 0) + Math.ceil(events.length / ROWS_PER_STATEMENT);
  if (statements > 1 && !db.isTransaction) {
    return db.transaction().execute((trx) => insertInboxEvents(trx, events));
  }
  if (bodyKeys.length > 0) await releasePickedUpBodyKeys(db, bodyKeys);
  const ids = new Map<string, number>();
  const inserted = await runBulk<{ id: number | string; dedupe_key: string }>(
    db,
    INSERT_EVENTS,
    events.map((event) => {
      const receivedAt = event.receivedAt.toISOString();
      return [
        event.dedupeKey,
        event.eventId ?? null,
        event.eventType ?? null,
        event.rawBody,
        JSON.stringify(event.headers),
        receivedAt,
        event.ignored ? 'processed' : 'received',
        event.ignored ? receivedAt : null,
        event.resource?.kind ?? null,
        event.resource?.id ?? null,
        event.resource?.reference ?? null,
        event.traceId ?? null,
      ];
    }),
  );
  for (const row of inserted) ids.set(row.dedupe_key, Number(row.id));
  const fresh = new Set(ids.keys());
  const missing = [...new Set(events.map((e) => e.dedupeKey))].filter((key) => !ids.has(key));
  for (const batch of chunks(missing, ROWS_PER_STATEMENT)) {
    const existing = await db
      .selectFrom('webhook_inbox')
      .select(['id', 'dedupe_key'])
      .where('dedupe_key', 'in', batch)
      .execute();
    for (const row of existing) ids.set(row.dedupe_key, row.id);
  }
  return events.map((event) => {
    const inboxId = ids.get(event.dedupeKey);
    if (inboxId === undefined) throw new Error(`inbox row for ${event.dedupeKey} vanished`);
    // Only the first occurrence of a key that this statement inserted is new.
    const duplicate = !fresh.delete(event.dedupeKey);
    return { inboxId, duplicate };
  });
}

export async function findInboxEvent(db: Executor, id: number): Promise<InboxEvent | undefined> {
  const row = await db
    .selectFrom('webhook_inbox')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toInboxEvent(row) : undefined;
}

export interface InboxStatusChange {
  /** Why the last attempt failed; cleared when omitted. Never put secrets here. */
  readonly lastError?: string;
  /** Count one more processing attempt. @defaultValue false */
  readonly countAttempt?: boolean;
}

/** The statuses that set `processed_at`. */
export type FinalInboxStatus = 'processed' | 'unclassified';

/** A change to a final status also says when, by the caller's clock (it becomes `processed_at`). */
export interface FinalInboxStatusChange extends InboxStatusChange {
  readonly at: Date;
}

/**
 * Moves one row to `status`. `processed_at` is set for the final statuses (`processed`,
 * `unclassified`) and cleared otherwise. Returns false when no row has that id.
 */
export async function markInboxStatus(
  db: Executor,
  id: number,
  status: InboxStatus,
  change: FinalInboxStatusChange,
): Promise<boolean>;
export async function markInboxStatus(
  db: Executor,
  id: number,
  status: Exclude<InboxStatus, FinalInboxStatus>,
  change?: InboxStatusChange,
): Promise<boolean>;
export async function markInboxStatus(
  db: Executor,
  id: number,
  status: InboxStatus,
  change: InboxStatusChange & { readonly at?: Date } = {},
): Promise<boolean> {
  const final = status === 'processed' || status === 'unclassified';
  if (final && change.at === undefined)
    throw new Error(`marking inbox row ${id} ${status} needs the time it happened (at)`);
  const result = await db
    .updateTable('webhook_inbox')
    .set((eb) => ({
      status,
      last_error: change.lastError ?? null,
      processed_at: final && change.at ? change.at.toISOString() : null,
      ...(change.countAttempt ? { attempts: eb('attempts', '+', 1) } : {}),
    }))
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A row the recovery sweep should enqueue again. */
export interface InboxRecoveryCandidate {
  readonly id: number;
  readonly status: InboxStatus;
  readonly receivedAt: string;
  readonly attempts: number;
  /** Classified at intake and not yet picked up: its work is a sync batch, not an ingest job. */
  readonly awaitsBatch: boolean;
}

/**
 * Rows received (or picked up) but not finished before `olderThan`, oldest first: events
 * whose ingest job Redis lost or never got. Reading changes nothing, so running the sweep
 * twice is harmless; the deterministic ingest job id makes re-enqueueing idempotent.
 */
export async function inboxRowsAwaitingRecovery(
  db: Executor,
  options: { readonly olderThan: Date; readonly limit: number },
): Promise<InboxRecoveryCandidate[]> {
  const rows = await db
    .selectFrom('webhook_inbox')
    .select(['id', 'status', 'received_at', 'attempts', 'resource_kind'])
    .where('status', 'in', ['received', 'processing'])
    .where('received_at', '<', options.olderThan.toISOString())
    .orderBy('received_at')
    .orderBy('id')
    .limit(options.limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    receivedAt: row.received_at,
    attempts: row.attempts,
    awaitsBatch: row.status === 'received' && row.resource_kind !== null,
  }));
}
