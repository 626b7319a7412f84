import { randomUUID } from 'node:crypto';
import { runBulk, type Executor } from '../db/index.ts';
import type { RelayEventDraft } from './event-data.ts';
import { matchesEventPatterns } from './event-types.ts';

/** What one emission added. */
export interface EmittedEvents {
  /** Events new to the books (a key already on file adds none). */
  readonly events: number;
  /** Deliveries created for them: call `notifyRelay()` after the commit when there are any. */
  readonly deliveries: number;
}

const EVENT_COLUMNS = [
  'event_id',
  'type',
  'subject',
  'dedupe_key',
  'environment',
  'occurred_at',
  'data',
  'created_at',
  'traceparent',
] as const;

const DELIVERY_COLUMNS = [
  'endpoint_id',
  'event_id',
  'subject',
  'state',
  'next_attempt_at',
  'created_at',
] as const;

/** A new public event id: `evt_` and 32 random hex digits. */
export function newEventId(): string {
  return `evt_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Writes `events` to `relay_events` in the caller's transaction, the one that made the change
 * (docs/relay.md, "The guarantee"): a change rolled back emits nothing, a change committed has
 * its events. One row per dedupe key: an event whose key is on file (a replayed change, a retried
 * job, a second worker) is not written again and gets no deliveries. Each new event gets one
 * pending delivery, due at `at`, per enabled endpoint whose patterns match its type. Runs on the
 * sync batch's hot path: at most one multi-row INSERT per table and one read of the (small)
 * endpoints table, and none of those when `events` is empty. `traceparent`: the booking's span,
 * which the deliveries' attempts continue (docs/observability.md).
 */
export async function emitRelayEvents(
  trx: Executor,
  events: readonly RelayEventDraft[],
  at: string,
  traceparent?: string,
): Promise<EmittedEvents> {
  if (events.length === 0) return { events: 0, deliveries: 0 };
  const seen = new Set<string>();
  const rows: unknown[][] = [];
  for (const event of events) {
    if (seen.has(event.dedupeKey)) continue;
    seen.add(event.dedupeKey);
    rows.push([
      newEventId(),
      event.type,
      event.subject,
      event.dedupeKey,
      event.environment,
      event.occurredAt ?? at,
      JSON.stringify(event.data),
      at,
      traceparent ?? null,
    ]);
  }
  const inserted = await runBulk<{ id: number; type: string; subject: string | null }>(
    trx,
    {
      table: 'relay_events',
      columns: EVENT_COLUMNS,
      tail: 'on conflict (dedupe_key) do nothing returning id, type, subject',
    },
    rows,
  );
  if (inserted.length === 0) return { events: 0, deliveries: 0 };

  const endpoints = await trx
    .selectFrom('relay_endpoints')
    .select(['id', 'event_types'])
    .where('status', '=', 'enabled')
    .execute();
  const deliveries: unknown[][] = [];
  for (const endpoint of endpoints) {
    const patterns =
      endpoint.event_types === null ? null : (JSON.parse(endpoint.event_types) as string[]);
    for (const event of inserted) {
      if (!matchesEventPatterns(patterns, event.type)) continue;
      deliveries.push([endpoint.id, event.id, event.subject, 'pending', at, at]);
    }
  }
  // The event is new, so its deliveries are too: no conflict to expect, and none tolerated
  // silently (the unique key stays the last word).
  await runBulk(
    trx,
    { table: 'relay_deliveries', columns: DELIVERY_COLUMNS, tail: '' },
    deliveries,
  );
  return { events: inserted.length, deliveries: deliveries.length };
}
