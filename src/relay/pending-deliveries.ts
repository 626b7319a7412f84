import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { requireEndpoint } from './manage-endpoints.ts';

/** A delivery that has not reached its endpoint: still pending, or given up. */
export interface UndeliveredView {
  /** `ep_…` */
  readonly endpoint: string;
  /** `evt_…` */
  readonly eventId: string;
  readonly type: string;
  readonly subject: string | null;
  /** When the event was emitted. */
  readonly emittedAt: string;
  /** `pending` or `gave_up`. */
  readonly state: 'pending' | 'gave_up';
  readonly attempts: number;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly lastAttemptAt: string | null;
  /** When it is tried next (it may also wait for an earlier event of its item); null once given up. */
  readonly nextAttemptAt: string | null;
}

/**
 * What was never delivered, oldest event first: every pending and given-up delivery, of one
 * endpoint or of all. `offset`/`limit` page it.
 */
export async function undeliveredEvents(
  db: Kysely<Database>,
  filter: { readonly endpointId?: string; readonly limit: number; readonly offset?: number },
): Promise<UndeliveredView[]> {
  const endpoint =
    filter.endpointId === undefined ? undefined : await requireEndpoint(db, filter.endpointId);
  let query = db
    .selectFrom('relay_deliveries')
    .innerJoin('relay_events', 'relay_events.id', 'relay_deliveries.event_id')
    .innerJoin('relay_endpoints', 'relay_endpoints.id', 'relay_deliveries.endpoint_id')
    .select([
      'relay_endpoints.endpoint_id as endpoint',
      'relay_events.event_id as eventId',
      'relay_events.type',
      'relay_events.subject',
      'relay_events.created_at as emittedAt',
      'relay_deliveries.state',
      'relay_deliveries.attempts',
      'relay_deliveries.last_status',
      'relay_deliveries.last_error',
      'relay_deliveries.last_attempt_at',
      'relay_deliveries.next_attempt_at',
    ])
    .where('relay_deliveries.state', 'in', ['pending', 'gave_up']);
  if (endpoint) query = query.where('relay_deliveries.endpoint_id', '=', endpoint.id);
  const rows = await query
    .orderBy('relay_deliveries.event_id')
    .orderBy('relay_deliveries.endpoint_id')
    .limit(filter.limit)
    .offset(filter.offset ?? 0)
    .execute();
  return rows.map((row) => ({
    endpoint: row.endpoint,
    eventId: row.eventId,
    type: row.type,
    subject: row.subject,
    emittedAt: row.emittedAt,
    state: row.state === 'gave_up' ? 'gave_up' : 'pending',
    attempts: Number(row.attempts),
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
  }));
}
