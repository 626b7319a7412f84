import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../src/sim/index.ts';
import { irtBody, startTestSim, type TestSim } from './support/sim-fetch.ts';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local receiver that answers with `statuses` in turn (then 200) and records every request. */
async function startReceiver(
  statuses: number[] = [],
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, server };
}

function verify(secret: string, message: Received): WebhookEvent {
  const headers = {
    'webhook-id': String(message.headers['webhook-id']),
    'webhook-timestamp': String(message.headers['webhook-timestamp']),
    'webhook-signature': String(message.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(message.body, headers) as WebhookEvent;
}

describe('webhook delivery', () => {
  let test: TestSim | undefined;
  let server: Server | undefined;

  afterEach(async () => {
    await test?.sim.stop();
    server?.close();
  });

  it('sends a verifiable signed event for each state change of a transfer created → pending → failed', async () => {
    test = await startTestSim({ webhookRetryDelaysMs: [20, 20] });
    const receiver = await startReceiver();
    server = receiver.server;
    const registered = await test.call('POST', '/webhooks', { body: { url: receiver.url } });
    expect(registered.status).toBe(201);
    const { id: webhookId, secret } = registered.body as { id: string; secret: string };
    expect(webhookId).toMatch(/^wh_/);
    expect(secret).toMatch(/^whsec_/);

    const created = await test.call('POST', '/delegated/transfers/irt', {
      body: irtBody('+221770009901', 'wh-1'),
    });
    const transferId = (created.body as { id: string }).id;
    test.sim.control.advance(2_000);
    test.sim.control.advance(5_000);
    await test.sim.control.webhooksIdle();

    const events = receiver.received.map((message) => verify(secret, message));
    expect(
      events.map((event) => [event.type, event.data.object.status, event.data.object.id]),
    ).toEqual([
      ['transfer.created', 'created', transferId],
      ['transfer.updated', 'pending', transferId],
      ['transfer.updated', 'failed', transferId],
    ]);
    expect(events[2]?.data.previousStatus).toBe('pending');
    expect(events[2]?.data.object.failureCause).toMatchObject({ code: 'recipient_not_found' });
    expect(new Set(events.map((event) => event.id)).size).toBe(3);
    // A tampered body fails verification: the signature covers it.
    const first = receiver.received[0] as Received;
    expect(() =>
      verify(secret, { ...first, body: first.body.replace('created', 'pending') }),
    ).toThrow();
  });

  it('retries: a receiver that answers 500 twice gets the same event a third time', async () => {
    test = await startTestSim({ webhookRetryDelaysMs: [30, 60, 90] });
    const receiver = await startReceiver([500, 500]);
    server = receiver.server;
    const { body } = await test.call('POST', '/webhooks', {
      body: { url: receiver.url, events: ['submerchant.*'] },
    });
    const { secret } = body as { secret: string };
    await test.call('POST', '/submerchants', { body: { name: 'Shop A' } });
    await test.sim.control.webhooksIdle();

    expect(receiver.received).toHaveLength(3);
    const ids = receiver.received.map((message) => message.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    expect(verify(secret, receiver.received[2] as Received).type).toBe('submerchant.created');

    const attempts = await test.call('GET', '/__sim/webhook-attempts');
    const list = (
      attempts.body as { attempts: { attempt: number; statusCode: number; outcome: string }[] }
    ).attempts;
    expect(list.map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([
      [1, 500, 'failed'],
      [2, 500, 'failed'],
      [3, 200, 'delivered'],
    ]);
  });

  it('gives up after the last retry and records a network error', async () => {
    test = await startTestSim({ webhookRetryDelaysMs: [10] });
    await test.call('POST', '/webhooks', { body: { url: 'http://127.0.0.1:1/nothing-listens' } });
    await test.call('POST', '/submerchants', { body: { name: 'Shop B' } });
    await test.sim.control.webhooksIdle();
    const attempts = test.sim.control.webhookAttempts();
    expect(attempts).toHaveLength(2);
    expect(attempts.every((a) => a.outcome === 'failed' && a.statusCode === null && a.error)).toBe(
      true,
    );
    expect(attempts[1]?.nextRetryAt).toBeUndefined();
  });

  it('uses a fixed secret when configured, and delivers only the events of the webhook mode', async () => {
    const fixed = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    test = await startTestSim({ webhookSecret: fixed });
    const receiver = await startReceiver();
    server = receiver.server;
    const registered = await test.call('POST', '/webhooks', { body: { url: receiver.url } });
    expect((registered.body as { secret: string }).secret).toBe(fixed);
    await test.call('POST', '/submerchants', {
      body: { name: 'Live shop' },
      headers: test.credentialHeaders('live'),
    });
    await test.call('POST', '/submerchants', { body: { name: 'Sandbox shop' } });
    await test.sim.control.webhooksIdle();
    expect(receiver.received).toHaveLength(1);
    expect(verify(fixed, receiver.received[0] as Received).data.object.name).toBe('Sandbox shop');
  });

  it('drops and duplicates events when told to', async () => {
    test = await startTestSim();
    const receiver = await startReceiver();
    server = receiver.server;
    await test.call('POST', '/webhooks', { body: { url: receiver.url } });
    test.sim.control.setFaults({ webhookDuplicateRate: 1 });
    await test.call('POST', '/submerchants', { body: { name: 'Twice' } });
    await test.sim.control.webhooksIdle();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[0]?.headers['webhook-id']).toBe(
      receiver.received[1]?.headers['webhook-id'],
    );

    test.sim.control.setFaults({ webhookDuplicateRate: 0, webhookDropRate: 1 });
    await test.call('POST', '/submerchants', { body: { name: 'Never' } });
    await test.sim.control.webhooksIdle();
    expect(receiver.received).toHaveLength(2);
    expect(test.sim.control.webhookAttempts().at(-1)?.outcome).toBe('dropped');
  });

  it('reorders events when told to: a held-back event arrives after a later one', async () => {
    test = await startTestSim();
    const receiver = await startReceiver();
    server = receiver.server;
    await test.call('POST', '/webhooks', { body: { url: receiver.url } });
    test.sim.control.setFaults({ webhookReorderRate: 1, webhookReorderDelayMs: 200 });
    await test.call('POST', '/submerchants', { body: { name: 'First' } });
    test.sim.control.setFaults({ webhookReorderRate: 0 });
    await test.call('POST', '/submerchants', { body: { name: 'Second' } });
    await test.sim.control.webhooksIdle();
    const names = receiver.received.map(
      (m) => (JSON.parse(m.body) as WebhookEvent).data.object.name,
    );
    expect(names).toEqual(['Second', 'First']);
  });
});

describe('webhook delivery pacing', () => {
  it('holds at most webhookConcurrency tries in flight to an endpoint, and delivers every event', async () => {
    const test = await startTestSim({ webhookConcurrency: 3, webhookRetryDelaysMs: [20] });
    let inFlight = 0;
    let most = 0;
    let delivered = 0;
    // Holds each request 30 ms, so a burst shows how many arrive together.
    const server = createServer((req, res) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          inFlight -= 1;
          delivered += 1;
          res.statusCode = 200;
          res.end();
        }, 30),
      );
    });
    try {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      await test.call('POST', '/webhooks', { body: { url: `http://127.0.0.1:${port}/hooks` } });
      const { count } = test.sim.control.seed({ kind: 'transfer', count: 8, settle: true });
      await test.sim.control.webhooksIdle();
      const sent = test.sim.control.webhookAttempts();
      expect(sent.length).toBeGreaterThanOrEqual(count);
      expect(sent.every((attempt) => attempt.outcome === 'delivered')).toBe(true);
      expect(delivered).toBe(sent.length);
      expect(most).toBe(3);
    } finally {
      await test.sim.stop();
      server.close();
    }
  });
});
