import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/index.ts';
import {
  newEndpointSecret,
  type RelayEndpointRow,
  type RelayEventRow,
} from '../../src/relay/index.ts';

/**
 * Relay rows seeded straight into the database, as the emission (src/relay/emit-events.ts) and
 * the endpoint management (src/relay/manage-endpoints.ts) write them: an endpoint with a fresh `whsec_` secret, an event,
 * and its delivery rows. Seeding like test/support/seed-books.ts, not a mock.
 */

export interface EndpointSeed {
  readonly url: string;
  readonly at: Date;
  readonly status?: 'enabled' | 'disabled';
  readonly eventTypes?: readonly string[] | null;
  readonly previousSecret?: string | null;
  readonly previousSecretExpiresAt?: string | null;
  readonly failingSince?: string | null;
}

export async function insertEndpoint(
  db: Kysely<Database>,
  seed: EndpointSeed,
): Promise<RelayEndpointRow> {
  const at = seed.at.toISOString();
  return db
    .insertInto('relay_endpoints')
    .values({
      endpoint_id: `ep_${randomBytes(8).toString('hex')}`,
      url: seed.url,
      description: null,
      event_types: seed.eventTypes ? JSON.stringify(seed.eventTypes) : null,
      secret: newEndpointSecret(),
      previous_secret: seed.previousSecret ?? null,
      previous_secret_expires_at: seed.previousSecretExpiresAt ?? null,
      status: seed.status ?? 'enabled',
      disabled_reason: null,
      disabled_at: null,
      failing_since: seed.failingSince ?? null,
      last_success_at: null,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface EventSeed {
  readonly type?: string;
  /** `transfer:tr_…`; null for an event about no item. */
  readonly subject: string | null;
  readonly at: Date;
  readonly data?: Record<string, unknown>;
  /** Endpoint row ids that get a pending delivery, due at `at`. */
  readonly deliverTo?: readonly number[];
}

export async function insertEvent(db: Kysely<Database>, seed: EventSeed): Promise<RelayEventRow> {
  const at = seed.at.toISOString();
  const eventId = `evt_${randomBytes(12).toString('hex')}`;
  const event = await db
    .insertInto('relay_events')
    .values({
      event_id: eventId,
      type: seed.type ?? 'transfer.status_changed',
      subject: seed.subject,
      dedupe_key: eventId,
      environment: 'sandbox',
      occurred_at: at,
      data: JSON.stringify(seed.data ?? { subject: seed.subject }),
      created_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  for (const endpointId of seed.deliverTo ?? []) {
    await insertDelivery(db, endpointId, event, seed.at);
  }
  return event;
}

export async function insertDelivery(
  db: Kysely<Database>,
  endpointRowId: number,
  event: RelayEventRow,
  at: Date,
): Promise<number> {
  const row = await db
    .insertInto('relay_deliveries')
    .values({
      endpoint_id: endpointRowId,
      event_id: event.id,
      subject: event.subject,
      state: 'pending',
      next_attempt_at: at.toISOString(),
      claimed_until: null,
      last_attempt_at: null,
      last_status: null,
      last_error: null,
      finished_at: null,
      created_at: at.toISOString(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Every delivery of an endpoint, in event order. */
export function deliveriesOf(db: Kysely<Database>, endpointRowId: number) {
  return db
    .selectFrom('relay_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointRowId)
    .orderBy('event_id')
    .execute();
}
