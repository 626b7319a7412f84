import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { planPruning, pruneTables } from '../../src/retention/index.ts';
import { insertEndpoint, insertEvent } from '../support/relay-rows.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

const DAY = 86_400_000;
const NOW = new Date('2026-11-20T10:00:00.000Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

/** A delivery in `state`, finished (or last tried) `days` ago, with one logged attempt then. */
async function seedDelivery(
  endpointId: number,
  name: string,
  createdDaysAgo: number,
  state: 'delivered' | 'gave_up' | 'pending',
  lastDaysAgo: number,
) {
  const event = await insertEvent(database.db, {
    subject: `transfer:${name}`,
    at: ago(createdDaysAgo),
    data: { item: name },
    deliverTo: [endpointId],
  });
  const last = ago(lastDaysAgo).toISOString();
  const delivery = await database.db
    .updateTable('relay_deliveries')
    .set({
      state,
      attempts: 1,
      next_attempt_at: last,
      last_attempt_at: last,
      finished_at: state === 'pending' ? null : last,
    })
    .where('event_id', '=', event.id)
    .returning('id')
    .executeTakeFirstOrThrow();
  await database.db
    .insertInto('relay_attempts')
    .values({
      delivery_id: delivery.id,
      endpoint_id: endpointId,
      event_id: event.id,
      attempt: 1,
      attempted_at: last,
      duration_ms: 12,
      outcome: state === 'delivered' ? 'delivered' : 'failed',
      status_code: state === 'delivered' ? 200 : 500,
      response_excerpt: 'ok',
      error: null,
    })
    .execute();
  return event;
}

async function left() {
  const [events, deliveries, attempts] = await Promise.all([
    database.db.selectFrom('relay_events').select('data').orderBy('id').execute(),
    database.db.selectFrom('relay_deliveries').select(['subject', 'state']).orderBy('id').execute(),
    database.db.selectFrom('relay_attempts').select('attempted_at').orderBy('id').execute(),
  ]);
  return {
    events: events.map((e) => (JSON.parse(e.data) as { item: string }).item),
    deliveries: deliveries.map((d) => `${d.subject}:${d.state}`),
    attempts: attempts.length,
  };
}

describe(`relay retention on ${testDialect()}`, () => {
  it('prunes old log rows, old finished deliveries and events nothing needs; never a pending one', async () => {
    const endpoint = await insertEndpoint(database.db, { url: 'https://x.example', at: ago(90) });
    await seedDelivery(endpoint.id, 'old-delivered', 60, 'delivered', 59);
    await seedDelivery(endpoint.id, 'old-gave-up', 60, 'gave_up', 40);
    await seedDelivery(endpoint.id, 'old-pending', 60, 'pending', 45);
    await seedDelivery(endpoint.id, 'late-delivered', 60, 'delivered', 2);
    await seedDelivery(endpoint.id, 'recent', 1, 'delivered', 1);
    // An old event no endpoint was subscribed to.
    await insertEvent(database.db, {
      subject: 'day:2026-09-01',
      at: ago(80),
      data: { item: 'nobody' },
    });

    const settings = loadConfig({ PAYSYNC_RETENTION_RELAY_AFTER: '30d' }).retention;
    const plan = await planPruning(database.db, settings, NOW);
    const relay = plan.filter((p) => p.table.startsWith('relay_'));
    expect(relay.map((p) => [p.table, p.count, p.variable])).toEqual([
      ['relay_attempts', 3, 'PAYSYNC_RETENTION_RELAY_AFTER'],
      ['relay_deliveries', 2, 'PAYSYNC_RETENTION_RELAY_AFTER'],
      ['relay_events', 1, 'PAYSYNC_RETENTION_RELAY_AFTER'],
    ]);

    await pruneTables(database.db, { ...settings, batchSize: 1 }, NOW, { pauseMs: 0 });
    expect(await left()).toEqual({
      // The events of the pruned deliveries go on the next run (the plan is made first).
      events: ['old-delivered', 'old-gave-up', 'old-pending', 'late-delivered', 'recent'],
      deliveries: [
        'transfer:old-pending:pending',
        'transfer:late-delivered:delivered',
        'transfer:recent:delivered',
      ],
      attempts: 2,
    });
    await pruneTables(database.db, settings, NOW, { pauseMs: 0 });
    expect(await left()).toEqual({
      events: ['old-pending', 'late-delivered', 'recent'],
      deliveries: [
        'transfer:old-pending:pending',
        'transfer:late-delivered:delivered',
        'transfer:recent:delivered',
      ],
      attempts: 2,
    });
  });

  it('off keeps the relay tables for ever', async () => {
    const endpoint = await insertEndpoint(database.db, { url: 'https://x.example', at: ago(90) });
    await seedDelivery(endpoint.id, 'old-delivered', 60, 'delivered', 59);
    const settings = loadConfig({ PAYSYNC_RETENTION_RELAY_AFTER: 'off' }).retention;
    await pruneTables(database.db, settings, NOW, { pauseMs: 0 });
    expect(await left()).toEqual({
      events: ['old-delivered'],
      deliveries: ['transfer:old-delivered:delivered'],
      attempts: 1,
    });
  });
});
