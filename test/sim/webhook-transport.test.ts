import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../src/sim/index.ts';
import { startTestSim, type TestSim } from './support/sim-fetch.ts';

interface Receiver {
  url: string;
  server: Server;
  /** Bodies in arrival order. */
  events: WebhookEvent[];
  /** TCP connections the simulator opened. */
  connections: () => number;
}

/** A receiver whose `handle` decides each answer; it counts the connections it accepts. */
async function startReceiver(
  handle: (req: IncomingMessage, res: ServerResponse, index: number) => void = (_req, res) =>
    res.end(),
): Promise<Receiver> {
  const events: WebhookEvent[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      events.push(JSON.parse(body) as WebhookEvent);
      handle(req, res, events.length - 1);
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    server,
    events,
    connections: () => connections,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhook transport (keep-alive connections)', () => {
  let test: TestSim | undefined;
  let receiver: Receiver | undefined;

  afterEach(async () => {
    await test?.sim.stop();
    receiver?.server.closeAllConnections();
    receiver?.server.close();
    test = undefined;
    receiver = undefined;
  });

  it('one try at a time: every event arrives in the order it happened, over one reused connection', async () => {
    test = await startTestSim({ webhookConcurrency: 1 });
    receiver = await startReceiver();
    await test.call('POST', '/webhooks', { body: { url: receiver.url } });
    const { ids } = test.sim.control.seed({
      kind: 'transfer',
      count: 5,
      settle: true,
      failureRate: 0,
    });
    await test.sim.control.webhooksIdle();

    expect(receiver.events).toHaveLength(15);
    // Seeding settles each transfer before any try is sent: each payload still shows the
    // status of its own change.
    for (const id of ids) {
      const statuses = receiver.events
        .filter((event) => event.data.object.id === id)
        .map((event) => event.data.object.status);
      expect(statuses).toEqual(['created', 'pending', 'successful']);
    }
    // Arrival order is the order the simulator recorded its tries in.
    expect(receiver.events.map((event) => event.id)).toEqual(
      test.sim.control.webhookAttempts().map((attempt) => attempt.eventId),
    );
    expect(receiver.connections()).toBe(1);
  });

  it('retries a try whose connection the receiver drops without answering', async () => {
    test = await startTestSim({ webhookRetryDelaysMs: [20] });
    receiver = await startReceiver((req, res, index) => {
      if (index === 0) req.socket.destroy();
      else res.end();
    });
    await test.call('POST', '/webhooks', {
      body: { url: receiver.url, events: ['submerchant.*'] },
    });
    await test.call('POST', '/submerchants', { body: { name: 'Dropped once' } });
    await test.sim.control.webhooksIdle();

    const attempts = test.sim.control.webhookAttempts();
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([
      [1, null, 'failed'],
      [2, 200, 'delivered'],
    ]);
    expect(attempts[0]?.error).toBeTruthy();
    expect(attempts[0]?.nextRetryAt).toBeDefined();
    expect(receiver.events.map((event) => event.id)).toEqual([
      attempts[0]?.eventId,
      attempts[0]?.eventId,
    ]);
  });

  it('an answer cut off halfway is a failed try, retried, and never leaves the sender waiting', async () => {
    test = await startTestSim({ webhookRetryDelaysMs: [20], webhookTimeoutMs: 60_000 });
    receiver = await startReceiver((req, res, index) => {
      if (index > 0) return void res.end();
      res.writeHead(200, { 'content-length': '100' });
      res.write('only part of it', () => req.socket.destroy());
    });
    await test.call('POST', '/webhooks', {
      body: { url: receiver.url, events: ['submerchant.*'] },
    });
    await test.call('POST', '/submerchants', { body: { name: 'Cut off' } });
    await test.sim.control.webhooksIdle();

    const attempts = test.sim.control.webhookAttempts();
    expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'failed'],
      [2, 'delivered'],
    ]);
    expect(attempts[0]?.durationMs).toBeLessThan(10_000);
  });

  it('a receiver that closes idle connections costs no failed try: the next event goes out on a new one', async () => {
    test = await startTestSim({ webhookRetryDelaysMs: [5_000] });
    receiver = await startReceiver();
    receiver.server.keepAliveTimeout = 20;
    await test.call('POST', '/webhooks', {
      body: { url: receiver.url, events: ['submerchant.*'] },
    });
    await test.call('POST', '/submerchants', { body: { name: 'Before the close' } });
    await test.sim.control.webhooksIdle();
    await sleep(200);
    await test.call('POST', '/submerchants', { body: { name: 'After the close' } });
    await test.sim.control.webhooksIdle();

    const attempts = test.sim.control.webhookAttempts();
    expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'delivered'],
      [1, 'delivered'],
    ]);
    expect(receiver.connections()).toBe(2);
  });

  it('a receiver that never answers: the try times out, is recorded with its reason and retried', async () => {
    test = await startTestSim({ webhookTimeoutMs: 100, webhookRetryDelaysMs: [20] });
    receiver = await startReceiver(() => undefined);
    await test.call('POST', '/webhooks', {
      body: { url: receiver.url, events: ['submerchant.*'] },
    });
    await test.call('POST', '/submerchants', { body: { name: 'Silent' } });
    await test.sim.control.webhooksIdle();

    const attempts = test.sim.control.webhookAttempts();
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([
      [1, null, 'failed'],
      [2, null, 'failed'],
    ]);
    expect(attempts[0]?.error).toMatch(/no answer within 100 ms/);
    expect(receiver.events).toHaveLength(2);
  });
});
