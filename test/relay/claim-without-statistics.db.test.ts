/**
 * The deliverer's claim stays an index probe per candidate when PostgreSQL has no statistics
 * on the relay tables: autovacuum off (as on this project's CI machine), or a burst of
 * deliveries before its next ANALYZE. The long chaos run found the claim's "first in line"
 * check (`NOT EXISTS` an earlier pending delivery) planned through
 * `relay_deliveries_endpoint_state`, reading every pending delivery of the endpoint for each
 * candidate: 26 s per claim with 9,400 pending, so the relay never drained. Migration 0019
 * dropped that index (the oldest-pending reads use a partial index on created_at), so the
 * check is one probe of `relay_deliveries_order` whatever the statistics say.
 */
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeQueries } from '../../src/db/index.ts';
import { claimDueDeliveries } from '../../src/relay/index.ts';
import { insertEndpoint } from '../support/relay-rows.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

const PENDING = 9500;
/** A subject as the relay writes it: the kind and the service's 24-character id. */
const subjectOf = (n: number) => `transfer:tr_${String(n).padStart(24, 'x')}`;
const AT = '2026-11-20T10:00:00.000Z';

describe.skipIf(testDialect() !== 'postgres')('the relay claim without planner statistics', () => {
  let database: TestDatabase;
  let claimSql: { sql: string; parameters: readonly unknown[] } | undefined;

  // Registered before the database opens: only databases opened afterwards are observed.
  const stop = observeQueries((query) => {
    if (/^select .* from "relay_deliveries" as "d"/.test(query.sql)) claimSql = query;
  });

  beforeAll(async () => {
    database = await freshDatabase();
    const db = database.db;
    const endpoint = await insertEndpoint(db, {
      url: 'http://127.0.0.1:9/relay',
      at: new Date(AT),
    });
    for (let start = 0; start < PENDING; start += 500) {
      const events = await db
        .insertInto('relay_events')
        .values(
          Array.from({ length: 500 }, (_, i) => ({
            event_id: `evt_burst${start + i}`,
            type: 'transfer.succeeded',
            subject: subjectOf(start + i),
            dedupe_key: `burst:${start + i}`,
            environment: 'sandbox',
            occurred_at: AT,
            data: '{}',
            created_at: AT,
          })),
        )
        .returning('id')
        .execute();
      await db
        .insertInto('relay_deliveries')
        .values(
          events.map((event, i) => ({
            endpoint_id: endpoint.id,
            event_id: event.id,
            subject: subjectOf(start + i),
            state: 'pending',
            attempts: 0,
            next_attempt_at: AT,
            claimed_until: null,
            last_attempt_at: null,
            last_status: null,
            last_error: null,
            finished_at: null,
            created_at: AT,
          })),
        )
        .execute();
    }
    // Leases taken and given back, as deliverers do under a failing consumer.
    for (let round = 0; round < 2; round += 1) {
      await db
        .updateTable('relay_deliveries')
        .set({ claimed_until: AT, attempts: round + 1 })
        .execute();
    }
    // No ANALYZE: the tables are as a burst leaves them before autovacuum looks.
    const claimed = await claimDueDeliveries(db, {
      now: new Date('2026-11-20T10:01:00.000Z'),
      leaseMs: 30_000,
      limit: 16,
    });
    expect(claimed).toHaveLength(16);
  }, 120_000);

  afterAll(async () => {
    stop();
    await database?.cleanup();
  });

  it('checks "first in line" with one probe of relay_deliveries_order per candidate', async () => {
    expect(claimSql, 'the claim statement was captured').toBeDefined();
    const { rows } = await database.db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${claimSql!.sql}`, [...claimSql!.parameters]),
    );
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    // Every scan of relay_deliveries inside the check is the ordering index, keyed by subject.
    const probes = plan.split('\n').filter((line) => / on relay_deliveries earlier\b/.test(line));
    expect(probes.length, plan).toBeGreaterThan(0);
    for (const probe of probes) expect(probe, plan).toMatch(/using relay_deliveries_order on/);
  });

  it('has no statistics to lean on (the condition under test)', async () => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stats where tablename = 'relay_deliveries'
        and schemaname = current_schema()`.execute(database.db);
    expect(rows[0]!.n).toBe(0);
  });
});
