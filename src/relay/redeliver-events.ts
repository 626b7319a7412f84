import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { EndpointError } from './endpoint-error.ts';
import { matchesEventPatterns } from './event-types.ts';
import { refuseUnknownPatterns, requireEndpoint } from './manage-endpoints.ts';
import { notifyRelay } from './relay-signal.ts';

// Redelivery: the relay's events sent to one of the merchant's endpoints again (`paysync endpoints
// redeliver`). Not src/replay, which runs received inbox events through the workers again.

/** Which events to send an endpoint again: those emitted since an instant, or one by id. */
export type RedeliverySelection =
  | {
      /** Events emitted (created) at or after this instant. */
      readonly since: Date;
      /** Only types matching one of these patterns (besides the endpoint's subscription). */
      readonly types?: readonly string[];
    }
  | { readonly eventId: string };

export interface RedeliveryResult {
  /** Events of the selection the endpoint is subscribed to (and its `types` matched). */
  readonly matched: number;
  /** New pending deliveries (the endpoint had none for the event: added after it, or disabled). */
  readonly created: number;
  /** Delivered or given-up deliveries set pending again, attempts back to 0. */
  readonly reset: number;
  /** Already pending: left as they are. */
  readonly alreadyPending: number;
  /** False when the endpoint is disabled: the deliveries wait until it is enabled. */
  readonly endpointEnabled: boolean;
}

export interface RedeliveryOptions {
  /**
   * Events per transaction, so a long redelivery never holds the write lock for long.
   * @defaultValue 500
   */
  readonly batchSize?: number;
  /** After each batch: events looked at, of those the selection holds. */
  readonly onProgress?: (progress: { done: number; total: number }) => void;
}

const EVENT_ID = /^evt_[0-9A-Za-z_]+$/;

interface EventRef {
  readonly id: number;
  readonly type: string;
  readonly subject: string | null;
}

/**
 * Queues events for one endpoint again, in event order: for each, a new pending delivery, or
 * its delivered or given-up one set pending with attempts at 0 (a pending one is left alone).
 * The message is the same (`webhook-id` = the event's id), so a consumer that deduplicates
 * sees each event once. Batches of {@link RedeliveryOptions.batchSize} events, one transaction each;
 * then the deliverer is woken.
 */
export async function redeliverToEndpoint(
  ctx: { readonly db: Kysely<Database>; readonly now: Date },
  endpointId: string,
  selection: RedeliverySelection,
  options: RedeliveryOptions = {},
): Promise<RedeliveryResult> {
  const { db } = ctx;
  const endpoint = await requireEndpoint(db, endpointId);
  const subscribed =
    endpoint.event_types === null ? null : (JSON.parse(endpoint.event_types) as string[]);
  const totals = { matched: 0, created: 0, reset: 0, alreadyPending: 0 };
  const at = ctx.now.toISOString();

  const queue = async (events: readonly EventRef[]) => {
    if (events.length === 0) return;
    await db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('relay_deliveries')
        .select(['id', 'event_id', 'state'])
        .where('endpoint_id', '=', endpoint.id)
        .where(
          'event_id',
          'in',
          events.map((event) => event.id),
        )
        .execute();
      const byEvent = new Map(existing.map((row) => [Number(row.event_id), row]));
      const missing = events.filter((event) => !byEvent.has(event.id));
      const finished = existing.filter((row) => row.state !== 'pending');
      if (missing.length > 0) {
        const inserted = await trx
          .insertInto('relay_deliveries')
          .values(
            missing.map((event) => ({
              endpoint_id: endpoint.id,
              event_id: event.id,
              subject: event.subject,
              state: 'pending',
              attempts: 0,
              next_attempt_at: at,
              created_at: at,
            })),
          )
          // An emission racing this redelivery may have just added one: it is pending already.
          .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
          .executeTakeFirst();
        const count = Number(inserted.numInsertedOrUpdatedRows ?? missing.length);
        totals.created += count;
        totals.alreadyPending += missing.length - count;
      }
      if (finished.length > 0) {
        await trx
          .updateTable('relay_deliveries')
          .set({
            state: 'pending',
            attempts: 0,
            next_attempt_at: at,
            claimed_until: null,
            last_status: null,
            last_error: null,
            finished_at: null,
          })
          .where(
            'id',
            'in',
            finished.map((row) => row.id),
          )
          .execute();
        totals.reset += finished.length;
      }
      totals.alreadyPending += existing.length - finished.length;
      totals.matched += events.length;
    });
  };

  if ('eventId' in selection) {
    if (!EVENT_ID.test(selection.eventId)) {
      throw new EndpointError({ code: 'event_id_invalid', eventId: selection.eventId });
    }
    const event = await db
      .selectFrom('relay_events')
      .select(['id', 'type', 'subject'])
      .where('event_id', '=', selection.eventId)
      .executeTakeFirst();
    if (!event) {
      throw new EndpointError({ code: 'event_not_found', eventId: selection.eventId });
    }
    if (!matchesEventPatterns(subscribed, event.type)) {
      throw new EndpointError({
        code: 'event_not_subscribed',
        eventId: selection.eventId,
        eventType: event.type,
        endpointId,
        subscribed: subscribed!,
      });
    }
    await queue([{ id: Number(event.id), type: event.type, subject: event.subject }]);
  } else {
    const types = selection.types?.map((type) => type.trim()).filter(Boolean) ?? [];
    refuseUnknownPatterns(types, 'types');
    const since = selection.since.toISOString();
    const batchSize = options.batchSize ?? 500;
    const counted = await db
      .selectFrom('relay_events')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('created_at', '>=', since)
      .executeTakeFirst();
    const total = Number(counted?.n ?? 0);
    let done = 0;
    let after = 0;
    for (;;) {
      const rows = await db
        .selectFrom('relay_events')
        .select(['id', 'type', 'subject'])
        .where('created_at', '>=', since)
        .where('id', '>', after)
        .orderBy('id')
        .limit(batchSize)
        .execute();
      if (rows.length === 0) break;
      after = Number(rows[rows.length - 1]!.id);
      done += rows.length;
      await queue(
        rows
          .filter(
            (row) =>
              row.type !== 'ping' &&
              matchesEventPatterns(subscribed, row.type) &&
              matchesEventPatterns(types, row.type),
          )
          .map((row) => ({ id: Number(row.id), type: row.type, subject: row.subject })),
      );
      options.onProgress?.({ done: Math.min(done, total), total });
      if (rows.length < batchSize) break;
    }
  }
  if (totals.created + totals.reset > 0) notifyRelay();
  return { ...totals, endpointEnabled: endpoint.status !== 'disabled' };
}
