import type { Executor } from '../db/index.ts';
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
    receivedAt: row.received_at,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    processedAt: row.processed_at,
    resourceKind: row.resource_kind,
    resourceId: row.resource_id,
    resourceReference: row.resource_reference,
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

/**
 * {@link insertInboxEvent} for many events in one statement (the receiver's group commit),
 * results in the order given. An event whose key is already stored, or appears earlier in
 * the same list, is a duplicate carrying the stored row's id.
 */
export async function insertInboxEvents(
  db: Executor,
  events: readonly NewInboxEvent[],
): Promise<InsertInboxResult[]> {
  if (events.length === 0) return [];
  const inserted = await db
    .insertInto('webhook_inbox')
    .values(
      events.map((event) => ({
        dedupe_key: event.dedupeKey,
        event_id: event.eventId ?? null,
        event_type: event.eventType ?? null,
        raw_body: event.rawBody,
        headers: JSON.stringify(event.headers),
        received_at: (event.receivedAt ?? new Date()).toISOString(),
        last_error: null,
        processed_at: null,
      })),
    )
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning(['id', 'dedupe_key'])
    .execute();
  const ids = new Map(inserted.map((row) => [row.dedupe_key, row.id]));
  const fresh = new Set(ids.keys());
  const missing = [...new Set(events.map((e) => e.dedupeKey))].filter((key) => !ids.has(key));
  if (missing.length > 0) {
    const existing = await db
      .selectFrom('webhook_inbox')
      .select(['id', 'dedupe_key'])
      .where('dedupe_key', 'in', missing)
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
  /** @defaultValue now */
  readonly at?: Date;
}

/**
 * Moves one row to `status`. `processed_at` is set for the final statuses (`processed`,
 * `unclassified`) and cleared otherwise. Returns false when no row has that id.
 */
export async function markInboxStatus(
  db: Executor,
  id: number,
  status: InboxStatus,
  change: InboxStatusChange = {},
): Promise<boolean> {
  const final = status === 'processed' || status === 'unclassified';
  const result = await db
    .updateTable('webhook_inbox')
    .set((eb) => ({
      status,
      last_error: change.lastError ?? null,
      processed_at: final ? (change.at ?? new Date()).toISOString() : null,
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
    .select(['id', 'status', 'received_at', 'attempts'])
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
  }));
}
