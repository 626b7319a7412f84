import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { startDaemon, type RunningDaemon } from '../../src/daemon/index.ts';
import { createLogger } from '../../src/logger.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { waitForCatchUp, describeState, type EndState } from '../processing/support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { createBacklogGate } from '../../src/receiver/backlog-gate.ts';
import { until } from '../support/until.ts';
import {
  signedEvent,
  startReceiverFixture,
  type ReceiverFixture,
} from './support/receiver-fixture.ts';

/**
 * Backpressure: a receiver whose workers are away fills its inbox up to
 * PAYSYNC_RECEIVER_MAX_BACKLOG, then answers 503 with Retry-After without reading the body,
 * counts it, and raises one alert. The simulator retries; once workers drain the backlog,
 * intake resumes, every event ends stored once and processed, and the alert resolves.
 */
const MAX_BACKLOG = 20;
const ITEMS = { transfers: 16, paymentIntents: 14, refunds: 7, paymentRefunds: 3 };

async function metric(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe(`receiver backpressure on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  let receiver: RunningDaemon | undefined;
  let workers: RunningDaemon | undefined;
  let secret: string;
  let refusedWhileFull: { status: number; retryAfter: string | null; body: unknown };
  let refusedEventId: string;
  let refusedCount: number;
  let alertsWhileFull: { kind: string; status: string }[];
  let state: EndState;

  beforeAll(async () => {
    fixture = await createDaemonFixture({
      // Retries every second for a minute: the backlog drains well within that.
      sim: { webhookRetryDelaysMs: Array.from({ length: 60 }, () => 1000) },
      env: { PAYSYNC_RECEIVER_MAX_BACKLOG: String(MAX_BACKLOG) },
    });
    secret = fixture.env.PAYSYNC_WEBHOOK_SECRET!;
    // The receiver alone: nothing processes the inbox, so its backlog only grows.
    receiver = await startDaemon({
      config: loadConfig({ ...fixture.env }),
      logger: createLogger({ level: 'silent', pretty: false }),
      roles: ['receiver'],
      queuePrefix: fixture.prefix,
      port: 0,
      host: '127.0.0.1',
      // Counted often, and the alert resolves after 3 s of calm rather than a minute.
      receiver: { backlogRefreshMs: 200, backpressureCalmMs: 3000 },
    });
    await fixture.registerWebhook(`${receiver.receiver!.url}/webhooks`);
    await generateMixedTraffic(fixture.sim, fixture.client, ITEMS);
    await until(
      () => fixture.sim.control.webhookAttempts().some((attempt) => attempt.statusCode === 503),
      { message: 'a webhook refused with 503', timeoutMs: 60_000 },
    );
    const event = signedEvent(secret);
    refusedEventId = event.id;
    const answer = await fetch(`${receiver.receiver!.url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...event.headers },
      body: event.body,
    });
    refusedWhileFull = {
      status: answer.status,
      retryAfter: answer.headers.get('retry-after'),
      body: await answer.json(),
    };
    refusedCount = await metric(
      receiver.opsServer!.url,
      'paysync_webhook_backpressure_total{reason="backlog_full"}',
    );
    alertsWhileFull = await until(
      async () => {
        const rows = await fixture.database.db
          .selectFrom('alerts')
          .select(['kind', 'status'])
          .where('kind', '=', 'webhook_backlog_full')
          .execute();
        return rows.length > 0 ? rows : undefined;
      },
      { message: 'the webhook_backlog_full alert', timeoutMs: 10_000 },
    );

    // Workers come: the backlog drains and the simulator's retries get through.
    const config = loadConfig({ ...fixture.env });
    workers = await startDaemon({
      config,
      logger: createLogger({ level: 'silent', pretty: false }),
      roles: ['workers'],
      queuePrefix: fixture.prefix,
      metricsPort: 0,
      host: '127.0.0.1',
    });
    state = await waitForCatchUp(fixture.database.db, fixture.sim, 120_000);
    await fixture.sim.control.webhooksIdle();
  }, 300_000);

  afterAll(async () => {
    await workers?.stop().catch(() => undefined);
    await receiver?.stop().catch(() => undefined);
    await fixture?.cleanup();
  });

  it('answers 503 with Retry-After once the backlog is full, and stores nothing', async () => {
    expect(refusedWhileFull).toEqual({
      status: 503,
      retryAfter: '30',
      body: {
        error: 'backlog_full',
        message: expect.stringMatching(/events wait to be processed; retry later$/) as unknown,
      },
    });
    const rows = await fixture.database.db
      .selectFrom('webhook_inbox')
      .select('id')
      .where('event_id', '=', refusedEventId)
      .execute();
    expect(rows).toEqual([]);
  });

  it('counts the refusals in /metrics', () => {
    expect(refusedCount).toBeGreaterThan(0);
  });

  it('raised one alert while full, resolved once intake resumed', async () => {
    expect(alertsWhileFull).toEqual([{ kind: 'webhook_backlog_full', status: 'open' }]);
    const after = await until(
      async () => {
        const rows = await fixture.database.db
          .selectFrom('alerts')
          .select(['kind', 'status'])
          .where('kind', '=', 'webhook_backlog_full')
          .execute();
        return rows.every((row) => row.status === 'resolved') ? rows : undefined;
      },
      { message: 'the alert resolved', timeoutMs: 20_000 },
    );
    expect(after).toEqual([{ kind: 'webhook_backlog_full', status: 'resolved' }]);
  });

  it('lost nothing: every event was delivered in the end, stored once and processed', async () => {
    expect(describeState(state)).toMatchObject({ statusMismatches: 0, openInbox: {} });
    const attempts = fixture.sim.control.webhookAttempts();
    const events = new Set(attempts.map((attempt) => attempt.eventId));
    const delivered = new Set(
      attempts.filter((attempt) => attempt.outcome === 'delivered').map((a) => a.eventId),
    );
    expect(attempts.filter((attempt) => attempt.statusCode === 503).length).toBeGreaterThan(0);
    expect([...events].filter((id) => !delivered.has(id))).toEqual([]);
    const inbox = await fixture.database.db
      .selectFrom('webhook_inbox')
      .select(['event_id', 'status'])
      .execute();
    expect(new Set(inbox.map((row) => row.event_id))).toEqual(events);
    expect(inbox).toHaveLength(events.size);
    expect(inbox.every((row) => row.status === 'processed')).toBe(true);
  });

  it('takes webhooks again (2xx) once the backlog drained', async () => {
    const event = signedEvent(secret, {
      body: JSON.stringify({ id: 'evt_after_the_drain', type: 'ping', data: {} }),
      id: 'evt_after_the_drain',
    });
    const answer = await fetch(`${receiver!.receiver!.url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...event.headers },
      body: event.body,
    });
    expect(answer.status).toBe(202);
  });
});

describe(`requests in flight on ${testDialect()}`, () => {
  let receiver: ReceiverFixture;
  const held: Socket[] = [];

  beforeAll(async () => {
    receiver = await startReceiverFixture({ env: { PAYSYNC_RECEIVER_MAX_IN_FLIGHT: '2' } });
  });

  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await receiver?.cleanup();
  });

  /** A request whose body never finishes: it holds one place until its socket goes. */
  async function holdOne(): Promise<Socket> {
    const { port } = new URL(receiver.url);
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":',
    );
    held.push(socket);
    return socket;
  }

  it('past PAYSYNC_RECEIVER_MAX_IN_FLIGHT, answers 503 with Retry-After at once; frees the place when a request ends', async () => {
    await holdOne();
    await holdOne();
    const secret = receiver.config.webhookSecrets[0]!;
    const event = signedEvent(secret);
    const refused = await until(
      async () => {
        const answer = await receiver.post(event.body, event.headers);
        return answer.status === 503 ? answer : undefined;
      },
      { message: 'a 503 while two requests hold their places', timeoutMs: 10_000 },
    );
    expect(refused.body).toMatchObject({ error: 'too_many_in_flight' });
    const raw = await fetch(`${receiver.url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...event.headers },
      body: event.body,
    });
    expect([raw.status, raw.headers.get('retry-after')]).toEqual([503, '5']);
    expect(await receiver.inboxCount()).toBe(0);

    held.shift()!.destroy();
    const accepted = await until(
      async () => {
        const answer = await receiver.post(event.body, event.headers);
        return answer.status === 202 ? answer : undefined;
      },
      { message: 'a 202 once a place is free', timeoutMs: 10_000 },
    );
    expect(accepted.body).toMatchObject({ received: true, duplicate: false });
    expect(await receiver.inboxCount()).toBe(1);
  });
});

describe(`the backlog gate on ${testDialect()}`, () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await freshDatabase();
  });

  afterAll(async () => {
    await database?.cleanup();
  });

  it('with a limit of 1, stops at one open row and resumes once the inbox is empty', async () => {
    await database.db
      .insertInto('webhook_inbox')
      .values({
        dedupe_key: 'event:evt_one',
        event_id: 'evt_one',
        event_type: 'transfer.updated',
        raw_body: Buffer.from('{}'),
        headers: '{}',
        received_at: '2030-01-10T10:00:00.000Z',
      })
      .execute();
    const full: number[] = [];
    const gate = createBacklogGate({
      db: database.db,
      maxBacklog: 1,
      refreshMs: 50,
      logger: createLogger({ level: 'silent', pretty: false }),
      onFull: async (backlog) => {
        full.push(backlog);
      },
    });
    await gate.start();
    try {
      expect([gate.isFull(), gate.backlog, full]).toEqual([true, 1, [1]]);
      await database.db.updateTable('webhook_inbox').set({ status: 'processed' }).execute();
      await until(() => !gate.isFull(), { message: 'the gate open again', timeoutMs: 5_000 });
      expect(gate.backlog).toBe(0);
      gate.noteStored(1);
      expect([gate.isFull(), full]).toEqual([true, [1, 1]]);
    } finally {
      await gate.stop();
    }
  });
});
