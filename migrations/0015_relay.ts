import type { Kysely } from 'kysely';
import { withIdColumn } from './schema-helpers.ts';

/**
 * The relay (issue 23, docs/relay.md): reconciled events for the merchant's own systems.
 *
 * - `relay_events`: one row per event, written in the transaction of the ledger, mirror,
 *   balance or verdict change that causes it (so a rolled-back change emits nothing and a
 *   committed one always does). `id` is the order of emission; `subject` names the item the
 *   event is about, the unit of ordering.
 * - `relay_endpoints`: where events go, with their signing secrets.
 * - `relay_deliveries`: one row per (endpoint, event), created with the event for each
 *   enabled endpoint subscribed to its type (or by a replay); the delivery state machine.
 * - `relay_attempts`: the delivery log, one row per POST.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('relay_events'))
    // The public id, sent as `webhook-id`: stable across retries and replays.
    .addColumn('event_id', 'text', (col) => col.notNull().unique())
    .addColumn('type', 'text', (col) => col.notNull())
    // The item the event is about (`transfer:tr_…`, `day:2026-11-01`); null for none.
    .addColumn('subject', 'text')
    // Same key, same event: a replayed change emits nothing new.
    .addColumn('dedupe_key', 'text', (col) => col.notNull().unique())
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('occurred_at', 'text', (col) => col.notNull())
    // JSON object: the event's `data`.
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('relay_events_created_at')
    .on('relay_events')
    .columns(['created_at', 'id'])
    .execute();

  await withIdColumn(db, db.schema.createTable('relay_endpoints'))
    // The public id (`ep_…`), what the CLI, the API and the dashboard name.
    .addColumn('endpoint_id', 'text', (col) => col.notNull().unique())
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    // JSON array of type patterns (`transfer.*`, `day.verdict`); null: every type.
    .addColumn('event_types', 'text')
    // `whsec_…`; after a rotation the old one stays valid (and signed with) until it expires.
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    // `enabled` or `disabled`.
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', 'text')
    // Start of the current run of failed attempts; null after a success.
    .addColumn('failing_since', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable('relay_deliveries'))
    .addColumn('endpoint_id', 'bigint', (col) => col.notNull())
    .addColumn('event_id', 'bigint', (col) => col.notNull())
    // Copied from the event: deliveries of one subject to one endpoint go out in event order.
    .addColumn('subject', 'text')
    // `pending`, `delivered` or `gave_up`.
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (col) => col.notNull())
    // A deliverer holds the delivery until then (a lease; another process may take it after).
    .addColumn('claimed_until', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('relay_deliveries_endpoint_event', ['endpoint_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('relay_deliveries_due')
    .on('relay_deliveries')
    .columns(['state', 'next_attempt_at', 'id'])
    .execute();
  await db.schema
    .createIndex('relay_deliveries_order')
    .on('relay_deliveries')
    .columns(['endpoint_id', 'subject', 'state', 'event_id'])
    .execute();
  await db.schema
    .createIndex('relay_deliveries_endpoint_state')
    .on('relay_deliveries')
    .columns(['endpoint_id', 'state', 'created_at'])
    .execute();

  await withIdColumn(db, db.schema.createTable('relay_attempts'))
    .addColumn('delivery_id', 'bigint', (col) => col.notNull())
    .addColumn('endpoint_id', 'bigint', (col) => col.notNull())
    .addColumn('event_id', 'bigint', (col) => col.notNull())
    .addColumn('attempt', 'integer', (col) => col.notNull())
    .addColumn('attempted_at', 'text', (col) => col.notNull())
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    // `delivered`, `failed` (non-2xx), `timeout`, `error` (no answer), `gone` (410).
    .addColumn('outcome', 'text', (col) => col.notNull())
    .addColumn('status_code', 'integer')
    // At most 1 KB of the answer, stored as text and never rendered as HTML.
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('relay_attempts_endpoint')
    .on('relay_attempts')
    .columns(['endpoint_id', 'attempted_at'])
    .execute();
  await db.schema
    .createIndex('relay_attempts_delivery')
    .on('relay_attempts')
    .columns(['delivery_id', 'attempt'])
    .execute();
  await db.schema
    .createIndex('relay_attempts_attempted_at')
    .on('relay_attempts')
    .columns(['attempted_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('relay_attempts').execute();
  await db.schema.dropTable('relay_deliveries').execute();
  await db.schema.dropTable('relay_endpoints').execute();
  await db.schema.dropTable('relay_events').execute();
}
