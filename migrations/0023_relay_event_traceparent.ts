import type { Kysely } from 'kysely';

/**
 * Issue 43, traces: the W3C `traceparent` of the booking that emitted each relay event, when it
 * was traced (docs/observability.md), so each delivery attempt continues the trace of the change
 * it announces, from the webhook to the merchant's endpoint. Never sent to an endpoint (the
 * message is built from the event's own columns). Null for events emitted untraced.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('relay_events').addColumn('traceparent', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('relay_events').dropColumn('traceparent').execute();
}
