/**
 * The relay's statements stay cheap on big tables (issue 22's rule, as in
 * test/foundation/query-plans.db.test.ts): every statement the deliverer, the health check,
 * the gauge and retention run is captured on a database holding thousands of deliveries, then
 * explained; a full scan of a relay table fails, naming the statement.
 */
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { observeQueries, sqliteConnectionOf } from '../../src/db/index.ts';
import { refreshOldestPending } from '../../src/relay/index.ts';
import { pruneTables } from '../../src/retention/index.ts';
import { insertEndpoint } from '../support/relay-rows.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';
import { startRelayConsumer, type RelayConsumer } from './support/relay-consumer.ts';
import { createRelaySetup, START, type RelaySetup } from './support/relay-setup.ts';

const GROWING = new Set(['relay_events', 'relay_deliveries', 'relay_attempts']);
const DML = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Known and not yet fixed, with the reason; printed on every run. Remove an entry when fixed.
 */
const KNOWN_FULL_SCANS: readonly { readonly match: RegExp; readonly why: string }[] = [
  {
    match: /^select count\(\*\) as "count", min\("ev"\."created_at"\)/,
    why:
      "retention's count of prunable relay_events: with most events past the cutoff PostgreSQL " +
      'hash-anti-joins them with every delivery; an index relay_deliveries (event_id) (a migration, ' +
      'for the integrator) makes it a probe per event. Once per retention run, not on the hot path.',
  },
];
const SEEDED = 3000;

describe(`relay query plans on ${testDialect()}`, () => {
  let setup: RelaySetup;
  let consumer: RelayConsumer;
  const statements = new Map<string, { sql: string; parameters: readonly unknown[] }>();
  let capturing = false;
  const stop = observeQueries((query) => {
    if (capturing && DML.test(query.sql) && /relay_/.test(query.sql)) {
      statements.set(query.sql, { sql: query.sql, parameters: query.parameters });
    }
  });

  beforeAll(async () => {
    setup = await createRelaySetup();
    consumer = await startRelayConsumer([], () => 200, setup.now);
    const db = setup.database.db;
    const live = await insertEndpoint(db, { url: consumer.url, at: START });
    consumer.secrets = [live.secret];
    const off = await insertEndpoint(db, { url: consumer.url, at: START, status: 'disabled' });
    // Old history: delivered and pending deliveries, their log; then a few due ones.
    const old = new Date(START.getTime() - 40 * 86_400_000).toISOString();
    for (let start = 0; start < SEEDED; start += 500) {
      const events = await db
        .insertInto('relay_events')
        .values(
          Array.from({ length: 500 }, (_, i) => ({
            event_id: `evt_seed${start + i}`,
            type: 'transfer.succeeded',
            subject: `transfer:tr_${(start + i) % 700}`,
            dedupe_key: `seed:${start + i}`,
            environment: 'sandbox',
            occurred_at: old,
            data: '{}',
            created_at: old,
          })),
        )
        .returning('id')
        .execute();
      const deliveries = await db
        .insertInto('relay_deliveries')
        .values(
          events.flatMap((event, i) => [
            {
              endpoint_id: live.id,
              event_id: event.id,
              subject: `transfer:tr_${(start + i) % 700}`,
              state: 'delivered',
              attempts: 1,
              next_attempt_at: old,
              claimed_until: null,
              last_attempt_at: old,
              last_status: 200,
              last_error: null,
              finished_at: old,
              created_at: old,
            },
            {
              endpoint_id: off.id,
              event_id: event.id,
              subject: `transfer:tr_${(start + i) % 700}`,
              state: 'pending',
              attempts: 0,
              next_attempt_at: old,
              claimed_until: null,
              last_attempt_at: null,
              last_status: null,
              last_error: null,
              finished_at: null,
              created_at: old,
            },
          ]),
        )
        .returning(['id', 'event_id', 'endpoint_id'])
        .execute();
      await db
        .insertInto('relay_attempts')
        .values(
          deliveries
            .filter((d) => d.endpoint_id === live.id)
            .map((d) => ({
              delivery_id: d.id,
              endpoint_id: live.id,
              event_id: d.event_id,
              attempt: 1,
              attempted_at: old,
              duration_ms: 3,
              outcome: 'delivered',
              status_code: 200,
              response_excerpt: 'ok',
              error: null,
            })),
        )
        .execute();
    }
    if (testDialect() === 'postgres') await sql`analyze`.execute(db);
    else await sql`analyze`.execute(db);

    capturing = true;
    const now = START.toISOString();
    for (let i = 0; i < 20; i += 1) {
      const event = await db
        .insertInto('relay_events')
        .values({
          event_id: `evt_new${i}`,
          type: 'transfer.succeeded',
          subject: `transfer:tr_${i % 3}`,
          dedupe_key: `new:${i}`,
          environment: 'sandbox',
          occurred_at: now,
          data: '{}',
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('relay_deliveries')
        .values({
          endpoint_id: live.id,
          event_id: event.id,
          subject: `transfer:tr_${i % 3}`,
          state: 'pending',
          next_attempt_at: now,
          claimed_until: null,
          last_attempt_at: null,
          last_status: null,
          last_error: null,
          finished_at: null,
          created_at: now,
        })
        .execute();
    }
    await setup.startDeliverer({
      failingAlertAfterMs: 1,
      disableAfterMs: 86_400_000 * 365,
    });
    await until(() => (consumer.events.length === 20 ? true : undefined), {
      message: 'the new deliveries',
    });
    await refreshOldestPending(db, setup.now());
    await pruneTables(
      db,
      { ...loadConfig({}).retention, batchSize: 100 },
      new Date(START.getTime() + 86_400_000),
      { pauseMs: 0 },
    );
    capturing = false;
  }, 180_000);

  afterAll(async () => {
    stop();
    await setup?.cleanup();
    await consumer?.close();
  });

  async function fullScans(statement: { sql: string; parameters: readonly unknown[] }) {
    const db = setup.database.db;
    if (testDialect() === 'sqlite') {
      const plan = sqliteConnectionOf(db)!
        .prepare(`explain query plan ${statement.sql}`)
        .all(...(statement.parameters as unknown[])) as { detail: string }[];
      const sorts = plan.some((row) => row.detail.startsWith('USE TEMP B-TREE FOR ORDER BY'));
      const limitedWalk = !sorts && /\blimit \?( offset \?)?$/i.test(statement.sql.trim());
      return plan
        .map(
          (row) =>
            /^SCAN (\w+)(?: AS \w+)?(?: USING (?:COVERING )?INDEX \w+)?$/.exec(row.detail)?.[1],
        )
        .filter((table): table is string => table !== undefined && GROWING.has(table))
        .filter(() => !limitedWalk);
    }
    return db.connection().execute(async (connection) => {
      await sql`set enable_seqscan = off`.execute(connection);
      try {
        const result = await connection.executeQuery<{ 'QUERY PLAN': unknown }>(
          CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.parameters]),
        );
        const found: string[] = [];
        const walk = (node: Record<string, unknown>, limited: boolean) => {
          const relation = node['Relation Name'];
          const type = node['Node Type'];
          const wholeIndex =
            (type === 'Index Scan' || type === 'Index Only Scan') &&
            node['Index Cond'] === undefined &&
            !limited;
          if (
            (type === 'Seq Scan' || wholeIndex) &&
            typeof relation === 'string' &&
            GROWING.has(relation)
          ) {
            found.push(relation);
          }
          for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) {
            walk(child, limited || type === 'Limit');
          }
        };
        const plan = result.rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[];
        walk(plan[0]!.Plan, false);
        return found;
      } finally {
        await sql`reset enable_seqscan`.execute(connection);
      }
    });
  }

  it('captured the claim, the record, the health check, the gauge and retention', () => {
    const all = [...statements.keys()].join('\n');
    expect(all).toMatch(/update "relay_deliveries" set "claimed_until"/);
    expect(all).toMatch(/insert into "relay_attempts"/);
    expect(all).toMatch(/from "relay_endpoints" as "e"/);
    expect(all).toMatch(/delete from "relay_attempts"/);
    expect(all).toMatch(/delete from "relay_deliveries"/);
  });

  it('reads no relay table whole', async () => {
    const bad: string[] = [];
    for (const statement of statements.values()) {
      if (/^\s*insert\b/i.test(statement.sql)) continue;
      const scans = await fullScans(statement);
      if (scans.length === 0) continue;
      const known = KNOWN_FULL_SCANS.find((k) => k.match.test(statement.sql));
      if (known) console.info(`known full scan (${known.why}): ${statement.sql}`);
      else bad.push(`${scans.join(', ')} ← ${statement.sql}`);
    }
    console.info(`explained ${statements.size} relay statements on ${testDialect()}`);
    expect(bad).toEqual([]);
  });
});
