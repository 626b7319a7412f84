import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  addEndpoint,
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  EndpointError,
  listEndpoints,
  pingEndpoint,
  relaySignal,
  redeliverToEndpoint,
  requireEndpoint,
  rotateEndpointSecret,
  showEndpoint,
  undeliveredEvents,
  type EndpointContext,
} from '../../src/relay/index.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import {
  deliveriesOf,
  endpointRowId,
  seedDelivery,
  seedRelayEvent,
  startConsumer,
  type SeededEvent,
} from '../support/relay-endpoint-rows.ts';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const SANDBOX_RULES = { allowHttp: false, allowedHosts: [] as string[] };
const LIVE_RULES = { allowHttp: false, allowedHosts: [] as string[] };
/** Live stores endpoint secrets only encrypted (docs/relay.md, "Secrets at rest"). */
const SECRETS_KEY = { id: 'k1', key: Buffer.alloc(32, 7).toString('base64') };
const hoursBefore = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000).toISOString();

let database: TestDatabase;
let sandbox: EndpointContext;
const consumers: { close: () => Promise<void> }[] = [];
const databases: TestDatabase[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  databases.push(database);
  sandbox = { db: database.db, now: NOW, environment: 'sandbox', relay: SANDBOX_RULES };
});
afterEach(async () => {
  for (const consumer of consumers.splice(0)) await consumer.close();
});
afterAll(async () => {
  for (const each of databases) await each.cleanup();
});

async function refusal(promise: Promise<unknown>): Promise<EndpointError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EndpointError);
  return error as EndpointError;
}

async function endpointCount(): Promise<number> {
  const rows = await database.db.selectFrom('relay_endpoints').select('id').execute();
  return rows.length;
}

describe('adding endpoints: the URL rules', () => {
  it('refuses http and loopback in live, as refusals naming the host, and adds nothing', async () => {
    const live: EndpointContext = { ...sandbox, environment: 'live', relay: LIVE_RULES };
    const before = await endpointCount();
    const http = await refusal(addEndpoint(live, { url: 'http://shop.example.com/hooks' }));
    expect(http.refusal).toEqual({ code: 'endpoint_url_not_https', host: 'shop.example.com' });
    const loopback = await refusal(addEndpoint(live, { url: 'https://127.0.0.1/hooks' }));
    expect(loopback.refusal).toEqual({
      code: 'endpoint_url_internal',
      host: '127.0.0.1',
      address: '127.0.0.1',
    });
    const local = await refusal(addEndpoint(live, { url: 'https://localhost:8443/hooks' }));
    expect(local.refusal).toEqual({
      code: 'endpoint_url_internal',
      host: 'localhost',
      address: '127.0.0.1',
    });
    const notUrl = await refusal(addEndpoint(live, { url: 'shop.example.com' }));
    expect(notUrl.refusal).toEqual({ code: 'endpoint_url_invalid', url: 'shop.example.com' });
    expect(await endpointCount()).toBe(before);

    // Allowed when the operator says so.
    const allowed = await addEndpoint(
      {
        ...live,
        relay: { allowHttp: true, allowedHosts: ['127.0.0.1'], secretsKeys: [SECRETS_KEY] },
      },
      { url: 'http://127.0.0.1:9/hooks' },
    );
    expect(allowed.endpoint.url).toBe('http://127.0.0.1:9/hooks');
    await deleteEndpoint(database.db, allowed.endpoint.id);
  });

  it('allows http and loopback in sandbox', async () => {
    const added = await addEndpoint(sandbox, { url: 'http://127.0.0.1:9/hooks' });
    expect(added.endpoint).toMatchObject({ status: 'enabled', events: null });
    await deleteEndpoint(database.db, added.endpoint.id);
  });

  it('checks every event pattern and keeps them; * or none means every type', async () => {
    const bad = await refusal(
      addEndpoint(sandbox, { url: 'https://a.example/h', events: ['transfer.*', 'transfers.*'] }),
    );
    expect(bad.refusal).toMatchObject({
      code: 'event_pattern_unknown',
      input: 'events',
      pattern: 'transfers.*',
    });
    const some = await addEndpoint(sandbox, {
      url: 'https://a.example/h',
      events: ['transfer.*', 'day.verdict', 'transfer.*'],
      description: '  shop  ',
    });
    expect(some.endpoint.events).toEqual(['transfer.*', 'day.verdict']);
    expect(some.endpoint.description).toBe('shop');
    const all = await addEndpoint(sandbox, { url: 'https://b.example/h', events: ['*'] });
    expect(all.endpoint.events).toBeNull();
    await deleteEndpoint(database.db, some.endpoint.id);
    await deleteEndpoint(database.db, all.endpoint.id);
  });
});

describe('secrets', () => {
  it('are handed out by add and rotate only: never in list or show', async () => {
    const added = await addEndpoint(sandbox, { url: 'https://c.example/h' });
    expect(added.secret).toMatch(/^whsec_/);
    const rotated = await rotateEndpointSecret(database.db, added.endpoint.id, NOW, {
      environment: 'sandbox',
    });
    expect(rotated.secret).not.toBe(added.secret);
    expect(rotated.previousValidUntil).toBe('2026-11-21T12:00:00.000Z');
    const seen = JSON.stringify([
      await listEndpoints(database.db, NOW),
      await showEndpoint(database.db, added.endpoint.id, NOW),
      rotated.endpoint,
    ]);
    expect(seen).not.toContain(added.secret);
    expect(seen).not.toContain(rotated.secret);
    expect(seen).not.toContain('whsec_');
    await deleteEndpoint(database.db, added.endpoint.id);
  });
});

describe('test (ping) against a real consumer', () => {
  it('sends a ping that the standardwebhooks package verifies, and reports the answer', async () => {
    const consumer = await startConsumer(() => ({ status: 200, body: 'pong <b>ok</b>' }));
    consumers.push(consumer);
    const added = await addEndpoint(sandbox, { url: consumer.url });
    const row = await requireEndpoint(database.db, added.endpoint.id);
    const result = await pingEndpoint(
      row,
      { ...SANDBOX_RULES, timeoutMs: 5_000 },
      'sandbox',
      new Date(),
    );
    expect(result).toMatchObject({
      outcome: 'delivered',
      statusCode: 200,
      excerpt: 'pong <b>ok</b>',
    });
    expect(consumer.received).toHaveLength(1);
    const [request] = consumer.received;
    const payload = new Webhook(added.secret).verify(
      request!.body,
      request!.headers as Record<string, string>,
    ) as { id: string; type: string; data: { endpoint: string } };
    expect(payload).toMatchObject({ id: result.eventId, type: 'ping', environment: 'sandbox' });
    expect(payload.data.endpoint).toBe(added.endpoint.id);
    expect(request!.headers['webhook-id']).toBe(result.eventId);

    // After a rotation both secrets verify the same ping, for 24 hours.
    const rotated = await rotateEndpointSecret(database.db, added.endpoint.id, new Date(), {
      environment: 'sandbox',
    });
    await pingEndpoint(
      await requireEndpoint(database.db, added.endpoint.id),
      { ...SANDBOX_RULES, timeoutMs: 5_000 },
      'sandbox',
      new Date(),
    );
    const second = consumer.received[1]!;
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [rotated.secret, added.secret]) {
      expect(() =>
        new Webhook(secret).verify(second.body, second.headers as Record<string, string>),
      ).not.toThrow();
    }
    await deleteEndpoint(database.db, added.endpoint.id);
  });

  it('reports a refusal, a 500 and a refused connection as they are', async () => {
    const consumer = await startConsumer(() => ({ status: 500, body: 'down for maintenance' }));
    consumers.push(consumer);
    const added = await addEndpoint(sandbox, { url: consumer.url });
    const failed = await pingEndpoint(
      await requireEndpoint(database.db, added.endpoint.id),
      { ...SANDBOX_RULES, timeoutMs: 5_000 },
      'sandbox',
      new Date(),
    );
    expect(failed).toMatchObject({
      outcome: 'failed',
      statusCode: 500,
      excerpt: 'down for maintenance',
    });
    // In live, the guard refuses a loopback address at send time too.
    const live = await pingEndpoint(
      await requireEndpoint(database.db, added.endpoint.id),
      { allowHttp: true, allowedHosts: [], timeoutMs: 5_000 },
      'live',
      new Date(),
    );
    expect(live.outcome).toBe('error');
    expect(live.error).toContain('internal address');
    expect(consumer.received).toHaveLength(1);
    await deleteEndpoint(database.db, added.endpoint.id);
  });
});

describe('disable, enable, delete', () => {
  it('disable keeps pending deliveries; enable makes them due now, clears failing, and wakes the deliverer', async () => {
    const added = await addEndpoint(sandbox, { url: 'https://d.example/h' });
    const id = added.endpoint.id;
    const event = await seedRelayEvent(database.db, {
      type: 'transfer.succeeded',
      subject: 'transfer:tr_d1',
      createdAt: hoursBefore(3),
    });
    await seedDelivery(database.db, {
      endpointId: id,
      event,
      state: 'pending',
      at: hoursBefore(3),
      nextAttemptAt: hoursBefore(-5),
      attempt: { outcome: 'failed', statusCode: 503 },
    });
    await database.db
      .updateTable('relay_endpoints')
      .set({ failing_since: hoursBefore(3) })
      .where('endpoint_id', '=', id)
      .execute();

    const disabled = await disableEndpoint(database.db, id, NOW);
    expect(disabled).toMatchObject({
      status: 'disabled',
      disabledReason: 'operator',
      disabledAt: NOW.toISOString(),
    });
    expect((await deliveriesOf(database.db, id)).map((d) => d.state)).toEqual(['pending']);
    expect(
      (await listEndpoints(database.db, NOW)).find((e) => e.endpoint.id === id)!.health,
    ).toMatchObject({
      state: 'disabled',
      pending: 1,
      oldestPendingAt: hoursBefore(3),
      oldestPendingAgeMs: 3 * 3_600_000,
    });

    let woken = 0;
    const listener = () => (woken += 1);
    relaySignal.on('deliveries', listener);
    try {
      const enabled = await enableEndpoint(database.db, id, NOW);
      expect(enabled.pending).toBe(1);
      expect(enabled.endpoint).toMatchObject({
        status: 'enabled',
        disabledReason: null,
        failingSince: null,
      });
    } finally {
      relaySignal.off('deliveries', listener);
    }
    expect(woken).toBe(1);
    expect((await deliveriesOf(database.db, id))[0]!.nextAttemptAt).toBe(NOW.toISOString());
  });

  it('delete removes the endpoint, its deliveries and its delivery log; an unknown id is not_found', async () => {
    const added = await addEndpoint(sandbox, { url: 'https://e.example/h' });
    const event = await seedRelayEvent(database.db, {
      type: 'day.verdict',
      subject: 'day:2026-11-19',
      createdAt: hoursBefore(1),
    });
    await seedDelivery(database.db, {
      endpointId: added.endpoint.id,
      event,
      state: 'delivered',
      at: hoursBefore(1),
      attempt: { outcome: 'delivered', statusCode: 204 },
    });
    const rowId = await endpointRowId(database.db, added.endpoint.id);
    await deleteEndpoint(database.db, added.endpoint.id);
    for (const table of ['relay_deliveries', 'relay_attempts'] as const) {
      const rows = await database.db
        .selectFrom(table)
        .select('id')
        .where('endpoint_id', '=', rowId)
        .execute();
      expect(rows, table).toEqual([]);
    }
    const again = await refusal(deleteEndpoint(database.db, added.endpoint.id));
    expect(again.refusal).toEqual({ code: 'endpoint_not_found', endpointId: added.endpoint.id });
    // The event itself stays: other endpoints may still want it.
    expect(
      await database.db
        .selectFrom('relay_events')
        .select('id')
        .where('id', '=', event.id)
        .execute(),
    ).toHaveLength(1);
  });
});

describe('show', () => {
  it('lists the last 20 attempts newest first with status, duration, outcome and excerpt, and counts the last 24 h', async () => {
    const added = await addEndpoint(sandbox, { url: 'https://f.example/h' });
    const id = added.endpoint.id;
    for (let i = 0; i < 22; i += 1) {
      const event = await seedRelayEvent(database.db, {
        type: 'transfer.succeeded',
        subject: `transfer:tr_f${i}`,
        createdAt: hoursBefore(30 - i),
      });
      await seedDelivery(database.db, {
        endpointId: id,
        event,
        state: i % 2 === 0 ? 'delivered' : 'gave_up',
        at: hoursBefore(30 - i),
        attempt:
          i % 2 === 0
            ? { outcome: 'delivered', statusCode: 200, excerpt: `ok ${i}`, durationMs: 40 + i }
            : { outcome: 'timeout', error: 'timed out after 15000 ms', durationMs: 15_000 },
      });
    }
    const detail = await showEndpoint(database.db, id, NOW);
    expect(detail.attempts).toHaveLength(20);
    expect(detail.attempts[0]).toMatchObject({
      attemptedAt: hoursBefore(9),
      outcome: 'timeout',
      statusCode: null,
      durationMs: 15_000,
      error: 'timed out after 15000 ms',
    });
    expect(detail.attempts[1]).toMatchObject({
      outcome: 'delivered',
      statusCode: 200,
      excerpt: 'ok 20',
      durationMs: 60,
      eventType: 'transfer.succeeded',
      subject: 'transfer:tr_f20',
    });
    // 24 h back from NOW, the bound included: attempts 24…9 hours before, i = 6…21.
    expect(detail.health.last24h).toEqual({
      delivered: 8,
      failed: 0,
      timeout: 8,
      error: 0,
      gone: 0,
    });
    await deleteEndpoint(database.db, id);
  });
});

describe('redeliver', () => {
  let endpointId: string;
  let events: SeededEvent[];
  // Its own database: the events of the period are exactly the ones seeded here.
  let redeliveryDatabase: TestDatabase;

  beforeAll(async () => {
    redeliveryDatabase = await freshDatabase();
    databases.push(redeliveryDatabase);
    database = redeliveryDatabase;
    sandbox = { ...sandbox, db: redeliveryDatabase.db };
    const added = await addEndpoint(sandbox, {
      url: 'https://g.example/h',
      events: ['transfer.*', 'day.verdict'],
    });
    endpointId = added.endpoint.id;
    const plan = [
      ['transfer.succeeded', 'transfer:tr_g1', 50],
      ['payment_intent.succeeded', 'payment_intent:pi_g1', 49], // not subscribed
      ['transfer.status_changed', 'transfer:tr_g2', 48],
      ['day.verdict', 'day:2026-11-18', 47],
      ['transfer.failed', 'transfer:tr_g2', 46],
      ['transfer.succeeded', 'transfer:tr_g3', 20],
      ['day.verdict', 'day:2026-11-19', 19],
    ] as const;
    events = [];
    for (const [type, subject, hours] of plan) {
      events.push(
        await seedRelayEvent(database.db, { type, subject, createdAt: hoursBefore(hours) }),
      );
    }
    // What the relay holds for it: one delivered, one given up, one still pending.
    await seedDelivery(database.db, {
      endpointId,
      event: events[0]!,
      state: 'delivered',
      at: hoursBefore(50),
      attempts: 1,
      attempt: { outcome: 'delivered', statusCode: 200 },
    });
    await seedDelivery(database.db, {
      endpointId,
      event: events[2]!,
      state: 'gave_up',
      attempts: 8,
      at: hoursBefore(30),
      lastError: 'ECONNREFUSED',
    });
    await seedDelivery(database.db, {
      endpointId,
      event: events[6]!,
      state: 'pending',
      attempts: 3,
      at: hoursBefore(1),
      nextAttemptAt: hoursBefore(-1),
    });
  });

  it('--since queues the subscribed events in event order: new rows, finished ones reset, pending ones left', async () => {
    const progress: { done: number; total: number }[] = [];
    let woken = 0;
    const listener = () => (woken += 1);
    relaySignal.on('deliveries', listener);
    let result;
    try {
      result = await redeliverToEndpoint(
        { db: database.db, now: NOW },
        endpointId,
        { since: new Date(hoursBefore(60)) },
        { batchSize: 2, onProgress: (p) => progress.push(p) },
      );
    } finally {
      relaySignal.off('deliveries', listener);
    }
    expect(result).toEqual({
      matched: 6,
      created: 3,
      reset: 2,
      alreadyPending: 1,
      endpointEnabled: true,
    });
    expect(woken).toBe(1);
    // Batches of two events: progress after each, up to every event of the period.
    expect(progress.map((p) => p.done)).toEqual([2, 4, 6, 7]);
    expect(new Set(progress.map((p) => p.total))).toEqual(new Set([7]));

    const rows = await deliveriesOf(database.db, endpointId);
    const subscribed = events.filter((_, i) => i !== 1);
    expect(rows.map((row) => row.eventId)).toEqual(subscribed.map((e) => e.eventId));
    expect(rows.map((row) => [row.state, row.attempts])).toEqual([
      ['pending', 0], // was delivered
      ['pending', 0], // had given up after 8
      ['pending', 0],
      ['pending', 0],
      ['pending', 0],
      ['pending', 3], // already pending: untouched
    ]);
    expect(rows.slice(0, 5).every((row) => row.nextAttemptAt === NOW.toISOString())).toBe(true);
    expect(rows.slice(0, 5).every((row) => row.finishedAt === null)).toBe(true);
    // New rows are inserted in event order, so their own ids follow the events' order too.
    const created = rows.filter((row) =>
      [events[3], events[4], events[5]].some((e) => e!.eventId === row.eventId),
    );
    expect(created.map((row) => row.id)).toEqual(
      [...created.map((row) => row.id)].sort((a, b) => a - b),
    );
  });

  it('--type narrows to matching types; a period with nothing queues nothing', async () => {
    await database.db
      .updateTable('relay_deliveries')
      .set({ state: 'delivered', finished_at: NOW.toISOString() })
      .where('endpoint_id', '=', await endpointRowId(database.db, endpointId))
      .execute();
    const verdicts = await redeliverToEndpoint({ db: database.db, now: NOW }, endpointId, {
      since: new Date(hoursBefore(60)),
      types: ['day.verdict'],
    });
    expect(verdicts).toMatchObject({ matched: 2, created: 0, reset: 2, alreadyPending: 0 });
    const rows = await deliveriesOf(database.db, endpointId);
    expect(rows.filter((row) => row.state === 'pending').map((row) => row.eventId)).toEqual([
      events[3]!.eventId,
      events[6]!.eventId,
    ]);
    const none = await redeliverToEndpoint({ db: database.db, now: NOW }, endpointId, {
      since: new Date(hoursBefore(-1)),
    });
    expect(none).toMatchObject({ matched: 0, created: 0, reset: 0 });
    const badType = await refusal(
      redeliverToEndpoint({ db: database.db, now: NOW }, endpointId, {
        since: NOW,
        types: ['transfer.nope'],
      }),
    );
    expect(badType.refusal).toMatchObject({
      code: 'event_pattern_unknown',
      input: 'types',
      pattern: 'transfer.nope',
    });
  });

  it('--event queues one event; unknown, unsubscribed or malformed ones are refused', async () => {
    const one = await redeliverToEndpoint({ db: database.db, now: NOW }, endpointId, {
      eventId: events[0]!.eventId,
    });
    expect(one).toMatchObject({ matched: 1, reset: 1 });
    const unknown = await refusal(
      redeliverToEndpoint({ db: database.db, now: NOW }, endpointId, { eventId: 'evt_nothing' }),
    );
    expect(unknown.refusal).toEqual({ code: 'event_not_found', eventId: 'evt_nothing' });
    const unsubscribed = await refusal(
      redeliverToEndpoint({ db: database.db, now: NOW }, endpointId, {
        eventId: events[1]!.eventId,
      }),
    );
    expect(unsubscribed.refusal).toMatchObject({
      code: 'event_not_subscribed',
      eventId: events[1]!.eventId,
      endpointId,
    });
    const malformed = await refusal(
      redeliverToEndpoint({ db: database.db, now: NOW }, endpointId, { eventId: 'tr_123' }),
    );
    expect(malformed.refusal).toEqual({ code: 'event_id_invalid', eventId: 'tr_123' });
  });

  it('pending lists what was never delivered, oldest event first, per endpoint or all', async () => {
    const other = await addEndpoint(sandbox, { url: 'https://h.example/h' });
    await seedDelivery(database.db, {
      endpointId: other.endpoint.id,
      event: events[1]!,
      state: 'gave_up',
      attempts: 8,
      at: hoursBefore(2),
      lastError: 'timed out after 15000 ms',
    });
    const mine = await undeliveredEvents(database.db, { endpointId, limit: 100 });
    expect(mine.map((row) => row.eventId)).toEqual([
      events[0]!.eventId,
      events[3]!.eventId,
      events[6]!.eventId,
    ]);
    expect(mine[0]).toMatchObject({
      endpoint: endpointId,
      type: 'transfer.succeeded',
      subject: 'transfer:tr_g1',
      state: 'pending',
      attempts: 0,
      nextAttemptAt: NOW.toISOString(),
    });
    const all = await undeliveredEvents(database.db, { limit: 100 });
    const gaveUp = all.find((row) => row.endpoint === other.endpoint.id)!;
    expect(gaveUp).toMatchObject({
      eventId: events[1]!.eventId,
      state: 'gave_up',
      attempts: 8,
      lastError: 'timed out after 15000 ms',
      nextAttemptAt: null,
    });
    expect(all.indexOf(gaveUp)).toBe(1); // between events[0] and events[3]
    await deleteEndpoint(database.db, other.endpoint.id);
  });
});
