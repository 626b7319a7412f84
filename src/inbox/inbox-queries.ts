import type { Executor } from '../db/index.ts';
import { INBOX_STATUSES, type InboxStatus } from './inbox.table.ts';

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
  /** The raw body as UTF-8 text; empty once retention pruned it (see `bodyPrunedAt`). */
  readonly body: string;
  /** When retention dropped the body (docs/retention.md), or null while it is kept. */
  readonly bodyPrunedAt: string | null;
  /** The sampled trace the webhook's request, sync and booking ran in (docs/observability.md). */
  readonly traceId: string | null;
}

/** A resource as the inbox may have seen it named: by id, or by one of its references. */
export interface InboxResourceName {
  readonly kind: string;
  readonly id: string;
  /** References a webhook may name the resource by instead of its id. */
  readonly references: readonly string[];
}

/**
 * The events that named `resource`, oldest first: by id, or by a reference under the same kind
 * (or under no kind yet, for a row not classified when it was read).
 */
export async function inboxEventsAbout(
  db: Executor,
  resource: InboxResourceName,
): Promise<InboxEventSummary[]> {
  const { references } = resource;
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
      'body_pruned_at',
      'trace_id',
    ])
    .where((eb) =>
      eb.or([
        eb('resource_id', '=', resource.id),
        ...(references.length > 0
          ? [
              eb.and([
                // A row that names an id is found by it; the index of references holds only
                // the rows that name none (migration 0021).
                eb('resource_id', 'is', null),
                eb('resource_reference', 'in', references),
                eb.or([eb('resource_kind', '=', resource.kind), eb('resource_kind', 'is', null)]),
              ]),
            ]
          : []),
      ]),
    )
    .orderBy('received_at')
    .orderBy('id')
    .execute();
  return events.map((row) => ({
    inboxId: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    receivedAt: row.received_at,
    processedAt: row.processed_at,
    attempts: row.attempts,
    lastError: row.last_error,
    body: Buffer.from(row.raw_body).toString('utf8'),
    bodyPrunedAt: row.body_pruned_at,
    traceId: row.trace_id ?? null,
  }));
}

/** Which inbox rows: one by id, or every one received since a time. */
export type InboxSelection = { readonly inboxId: number } | { readonly since: Date };

/** Number of inbox rows a selection matches. */
export async function countInboxEvents(db: Executor, selection: InboxSelection): Promise<number> {
  let query = db.selectFrom('webhook_inbox').select((eb) => eb.fn.countAll<number>().as('count'));
  query =
    'inboxId' in selection
      ? query.where('id', '=', selection.inboxId)
      : query.where('received_at', '>=', selection.since.toISOString());
  const row = await query.executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** One page of a selection in id order: the rows after `afterId`, at most `limit`. */
export async function inboxEventsAfter(
  db: Executor,
  selection: InboxSelection,
  page: { readonly afterId: number; readonly limit: number },
): Promise<{ readonly id: number; readonly status: InboxStatus }[]> {
  let query = db
    .selectFrom('webhook_inbox')
    .select(['id', 'status'])
    .where('id', '>', page.afterId)
    .orderBy('id')
    .limit(page.limit);
  query =
    'inboxId' in selection
      ? query.where('id', '=', selection.inboxId)
      : query.where('received_at', '>=', selection.since.toISOString());
  return query.execute();
}

/** How many inbox rows are in each status; a status with no row is absent. */
export async function inboxStatusCounts(db: Executor): Promise<Map<InboxStatus, number>> {
  const rows = await db
    .selectFrom('webhook_inbox')
    .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('status')
    .execute();
  return new Map(rows.map((row) => [row.status, Number(row.count)]));
}

/**
 * How many events arrived since an instant (`received`), or were processed since it
 * (`processed`): the dashboard's pipeline panel. Each is one range of one index: `received_at`
 * of `webhook_inbox_status_received_at`, or `webhook_inbox_processed_at`. The status of a row
 * processed since is counted, not filtered on: a `status =` term would make SQLite (which has no
 * statistics unless someone runs ANALYZE) prefer the status index and read every processed row.
 */
export async function inboxCountSince(
  db: Executor,
  what: 'received' | 'processed',
  since: string,
): Promise<number> {
  if (what === 'received') {
    const row = await db
      .selectFrom('webhook_inbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      // Every status, named: the index (status, received_at) is then read from `since` in
      // each status; without it PostgreSQL read all of that index (6 million entries on a
      // year of books: 280 ms for the dashboard's pipeline page, against 0.1 ms).
      .where('status', 'in', INBOX_STATUSES)
      .where('received_at', '>=', since)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
  const row = await db
    .selectFrom('webhook_inbox')
    .select((eb) =>
      eb.fn.count<number>(eb.case().when('status', '=', 'processed').then(1).end()).as('n'),
    )
    .where('processed_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
