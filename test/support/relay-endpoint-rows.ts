import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/index.ts';

/**
 * Seeding for the endpoint tests: relay events, deliveries and attempts written with kysely, as
 * the emitter and the deliverer would leave them (those parts are other helpers' work; these
 * rows are their documented shape, not a stand-in for their behaviour).
 */

export interface SeededEvent {
  readonly id: number;
  readonly eventId: string;
  readonly type: string;
  readonly subject: string | null;
}

/** One relay event, emitted at `createdAt`. */
export async function seedRelayEvent(
  db: Kysely<Database>,
  event: { type: string; subject?: string | null; createdAt: string; data?: object },
): Promise<SeededEvent> {
  const eventId = `evt_${randomBytes(10).toString('hex')}`;
  await db
    .insertInto('relay_events')
    .values({
      event_id: eventId,
      type: event.type,
      subject: event.subject ?? null,
      dedupe_key: `test:${eventId}`,
      environment: 'sandbox',
      occurred_at: event.createdAt,
      data: JSON.stringify(event.data ?? { note: 'seeded' }),
      created_at: event.createdAt,
    })
    .execute();
  const row = await db
    .selectFrom('relay_events')
    .select('id')
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), eventId, type: event.type, subject: event.subject ?? null };
}

/** The numeric id of an endpoint (`ep_…`). */
export async function endpointRowId(db: Kysely<Database>, endpointId: string): Promise<number> {
  const row = await db
    .selectFrom('relay_endpoints')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** A delivery of `event` to the endpoint in `state`, with one attempt in the log when tried. */
export async function seedDelivery(
  db: Kysely<Database>,
  delivery: {
    endpointId: string;
    event: SeededEvent;
    state: 'pending' | 'delivered' | 'gave_up';
    attempts?: number;
    at: string;
    nextAttemptAt?: string;
    lastError?: string | null;
    lastStatus?: number | null;
    attempt?: {
      outcome: 'delivered' | 'failed' | 'timeout' | 'error' | 'gone';
      statusCode?: number | null;
      excerpt?: string | null;
      error?: string | null;
      durationMs?: number;
    };
  },
): Promise<number> {
  const endpoint = await endpointRowId(db, delivery.endpointId);
  const attempts = delivery.attempts ?? (delivery.attempt ? 1 : 0);
  await db
    .insertInto('relay_deliveries')
    .values({
      endpoint_id: endpoint,
      event_id: delivery.event.id,
      subject: delivery.event.subject,
      state: delivery.state,
      attempts,
      next_attempt_at: delivery.nextAttemptAt ?? delivery.at,
      claimed_until: null,
      last_attempt_at: attempts > 0 ? delivery.at : null,
      last_status: delivery.lastStatus ?? delivery.attempt?.statusCode ?? null,
      last_error: delivery.lastError ?? delivery.attempt?.error ?? null,
      finished_at: delivery.state === 'pending' ? null : delivery.at,
      created_at: delivery.at,
    })
    .execute();
  const row = await db
    .selectFrom('relay_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpoint)
    .where('event_id', '=', delivery.event.id)
    .executeTakeFirstOrThrow();
  if (delivery.attempt) {
    await db
      .insertInto('relay_attempts')
      .values({
        delivery_id: Number(row.id),
        endpoint_id: endpoint,
        event_id: delivery.event.id,
        attempt: attempts,
        attempted_at: delivery.at,
        duration_ms: delivery.attempt.durationMs ?? 12,
        outcome: delivery.attempt.outcome,
        status_code: delivery.attempt.statusCode ?? null,
        response_excerpt: delivery.attempt.excerpt ?? null,
        error: delivery.attempt.error ?? null,
      })
      .execute();
  }
  return Number(row.id);
}

/** An endpoint's deliveries, in event order: what replay and enable change. */
export async function deliveriesOf(db: Kysely<Database>, endpointId: string) {
  const endpoint = await endpointRowId(db, endpointId);
  return db
    .selectFrom('relay_deliveries')
    .innerJoin('relay_events', 'relay_events.id', 'relay_deliveries.event_id')
    .select([
      'relay_deliveries.id',
      'relay_events.event_id as eventId',
      'relay_deliveries.state',
      'relay_deliveries.attempts',
      'relay_deliveries.next_attempt_at as nextAttemptAt',
      'relay_deliveries.finished_at as finishedAt',
    ])
    .where('relay_deliveries.endpoint_id', '=', endpoint)
    .orderBy('relay_deliveries.event_id')
    .execute();
}

export interface ReceivedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A real local HTTP consumer that answers every POST with `answer` and keeps what it got. */
export async function startConsumer(
  answer: (request: ReceivedRequest) => { status: number; body: string },
): Promise<{ url: string; received: ReceivedRequest[]; close: () => Promise<void> }> {
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const got = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(got);
      const { status, body } = answer(got);
      response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
