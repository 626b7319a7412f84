import { sql, type Kysely } from 'kysely';

/**
 * `relay_deliveries_endpoint_state` (endpoint_id, state, created_at) gave way to
 * `relay_deliveries_pending_age` (created_at) over pending deliveries only.
 *
 * The deliverer's "first in line" check (no earlier pending delivery of the same endpoint and
 * subject) is one probe of `relay_deliveries_order` (endpoint_id, subject, state, event_id).
 * PostgreSQL without statistics on the table (autovacuum off, as on this project's CI machine,
 * or a burst of deliveries before autovacuum's next ANALYZE) priced that probe the same as one
 * through (endpoint_id, state) and took the latter, which reads every pending delivery of the
 * endpoint: 26 s per claim with 9,400 pending in the long chaos run, so the relay never
 * drained. No index led by (endpoint_id, state) is left to be mistaken for it. The oldest
 * pending delivery (the gauge, the endpoint's health) is read from the new partial index in
 * created_at order; counting an endpoint's pending deliveries reads the pending ones, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('relay_deliveries_endpoint_state').execute();
  await db.schema
    .createIndex('relay_deliveries_pending_age')
    .on('relay_deliveries')
    .column('created_at')
    .where(sql.ref('state'), '=', sql.lit('pending'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('relay_deliveries_pending_age').execute();
  await db.schema
    .createIndex('relay_deliveries_endpoint_state')
    .on('relay_deliveries')
    .columns(['endpoint_id', 'state', 'created_at'])
    .execute();
}
