import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorOptions } from '../../src/sim/index.ts';
import { startTestSim, type TestSim } from './support/sim-fetch.ts';

const START = new Date('2030-05-10T10:00:00.000Z');
const MINUTE = 60_000;

/**
 * The same seeded history played on two simulators: one keeps everything in memory, the other
 * moves settled items (after 1 minute) and all but 5 money movements to its cold store.
 */
async function twins(options: SimulatorOptions = {}): Promise<[TestSim, TestSim]> {
  const common = { startAt: START, ...options };
  const kept = await startTestSim({ ...common, settledInMemoryMs: Number.POSITIVE_INFINITY });
  const moved = await startTestSim({ ...common, settledInMemoryMs: MINUTE, movementsInMemory: 5 });
  return [kept, moved];
}

/** The same traffic on a simulator: seeded items, refunds of both kinds, an OTP intent, funding. */
async function play(test: TestSim): Promise<{ intents: string[]; transfers: string[] }> {
  const { control } = test.sim;
  const intents = control.seed({
    kind: 'payment_intent',
    count: 40,
    settle: true,
    failureRate: 0.2,
    from: '2030-05-09T00:00:00.000Z',
  }).ids;
  const transfers = control.seed({
    kind: 'transfer',
    count: 40,
    settle: true,
    failureRate: 0.2,
    from: '2030-05-09T00:00:00.000Z',
  }).ids;
  control.advance(MINUTE);
  const successfulTransfer = transfers.find((id) => control.item(id)?.status === 'successful');
  const successfulIntent = intents.find((id) => control.item(id)?.status === 'successful');
  expect(
    (
      await test.call('POST', '/refunds/refund', {
        body: { transactionId: successfulTransfer, reason: 'duplicate' },
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await test.call('POST', `/payments-refund/${successfulIntent}/refund`, {
        body: { amount: 100, reason: 'partial' },
      })
    ).status,
  ).toBe(202);
  control.fund({ accountType: 'collection', currency: 'XOF', amount: 5_000 });
  control.advance(MINUTE);
  control.advance(5 * MINUTE);
  // Still moving when the others move out: stays in memory.
  control.createPaymentIntent({ amount: 700 });
  return { intents, transfers };
}

/** Raw answer text, so "the same" means byte for byte. */
async function text(test: TestSim, path: string): Promise<string> {
  const response = await fetch(`${test.sim.url}${path}`, { headers: test.credentialHeaders() });
  return `${response.status} ${await response.text()}`;
}

describe('settled items moved out of memory', () => {
  const running: TestSim[] = [];
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((test) => test.sim.stop()));
    await Promise.all(
      servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
    );
  });

  it('answer lists, ids, references, balances, receipts and ground truth byte for byte as before', async () => {
    const [kept, moved] = await twins();
    running.push(kept, moved);
    const { intents, transfers } = await play(kept);
    await play(moved);
    const movedOut = moved.sim.control.moveOut();
    expect(movedOut.items).toBeGreaterThan(80);
    expect(moved.sim.control.memory().items.inMemory).toBe(1);
    expect(moved.sim.control.memory().movements.inMemory).toBe(5);
    expect(kept.sim.control.moveOut()).toEqual({ items: 0, movements: 0 });

    const truth = async (test: TestSim) => text(test, '/__sim/ground-truth');
    expect(await truth(moved)).toBe(await truth(kept));
    // The streamed export is the JSON of groundTruth(), byte for byte.
    expect(await truth(kept)).toBe(`200 ${JSON.stringify(kept.sim.control.groundTruth())}`);
    expect(await text(moved, '/__sim/ground-truth?kind=transfer')).toBe(
      `200 ${JSON.stringify(kept.sim.control.groundTruth({ kind: 'transfer' }))}`,
    );
    expect(JSON.stringify(moved.sim.control.groundTruth())).toBe(
      JSON.stringify(kept.sim.control.groundTruth()),
    );

    const transferReference = (
      kept.sim.control.item(transfers[3]!)?.resource as { reference: string }
    ).reference;
    const purchaseReference = (
      kept.sim.control.item(intents[5]!)?.resource as { purchaseReference: string }
    ).purchaseReference;
    const window = 'from=2030-05-09T00:00:00.000Z&to=2030-05-11T00:00:00.000Z';
    const listPaths = [
      `/payment-intents?${window}&perPage=7&page=2`,
      `/payment-intents?${window}&perPage=100`,
      '/payment-intents',
      `/transfers?${window}&perPage=100`,
      `/transfers?${window}&perPage=3&page=4`,
      `/transfers?reference=${encodeURIComponent(transferReference)}&${window}`,
      `/payment-intents?purchaseReference=${encodeURIComponent(purchaseReference)}&${window}`,
      `/payment-intents?customerReference=seed-cu-3&${window}`,
      '/refunds',
      '/balance',
      '/balance?date=2030-05-10T10:00:30.000Z',
      '/balance?date=2030-05-09T12:00:00.000Z',
    ];
    for (const path of listPaths)
      expect(await text(moved, path), path).toBe(await text(kept, path));
    // Answered from the cold store: no item came back to memory.
    expect(moved.sim.control.memory().items.inMemory).toBe(1);

    const idPaths = [
      ...intents.map((id) => `/terminal/payments/${id}`),
      ...transfers.slice(0, 10).map((id) => `/receipts/html/rc_${id}`),
      ...intents.slice(0, 10).map((id) => `/receipts/html/${id}`),
      '/refunds/1001',
      '/payments-refund/1002/status',
    ];
    for (const path of idPaths) expect(await text(moved, path), path).toBe(await text(kept, path));
    expect(moved.sim.control.memory().items.inMemory).toBe(1);

    // Changed after moving out: a refund of a moved-out intent, a touch, an OTP retry; the
    // change lands and the item moves out again.
    const successful = intents.filter((id) => kept.sim.control.item(id)?.status === 'successful');
    const failed = intents.find((id) => kept.sim.control.item(id)?.status === 'failed')!;
    moved.sim.control.moveOut();
    for (const test of [kept, moved]) {
      const refund = await test.call('POST', `/payments-refund/${successful[1]}/refund`, {
        body: { reason: 'all of it' },
      });
      expect(refund.status).toBe(202);
      test.sim.control.touch(transfers[7]!);
      const retry = await test.call('POST', '/delegated/payments', {
        body: {
          amount: (test.sim.control.item(failed)?.resource as { amount: number }).amount,
          currency: 'XOF',
          purchaseReference: (
            test.sim.control.item(failed)?.resource as { purchaseReference: string }
          ).purchaseReference,
          customerReference: 'retry',
          phoneNumber: '+2217612345678',
        },
      });
      expect(retry.status).toBe(201);
      test.sim.control.advance(10 * MINUTE);
    }
    expect(moved.sim.control.moveOut().items).toBeGreaterThan(0);
    expect(await truth(moved)).toBe(await truth(kept));
    for (const path of [...listPaths, `/terminal/payments/${failed}`]) {
      expect(await text(moved, path), path).toBe(await text(kept, path));
    }
    expect(moved.sim.control.item(failed)?.status).toBe(kept.sim.control.item(failed)?.status);
    expect(moved.sim.control.item(failed)?.history.length).toBeGreaterThan(2);
  });

  it('with a frozen clock, moves nothing out on its own (wall time passing), only when asked', async () => {
    const test = await startTestSim({ startAt: START, settledInMemoryMs: 0 });
    running.push(test);
    const { control } = test.sim;
    const { count } = control.seed({
      kind: 'transfer',
      count: 20,
      settle: true,
      from: '2030-05-10T07:00:00.000Z',
      to: '2030-05-10T09:00:00.000Z',
    });
    // Longer than the simulator's one-second check: it must not run while the clock stands.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(control.memory().items).toEqual({ inMemory: count, moved: 0 });
    expect(control.moveOut().items).toBe(count);
    expect(control.memory().items).toEqual({ inMemory: 0, moved: count });
  });

  it('lists the newest webhook attempts in detail and counts them all', async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        res.writeHead(200).end();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const test = await startTestSim({ webhookAttemptsKept: 3 });
    running.push(test);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    expect((await test.call('POST', '/webhooks', { body: { url } })).status).toBe(201);
    for (let i = 0; i < 4; i += 1) test.sim.control.createPaymentIntent({ amount: 100 + i });
    await test.sim.control.webhooksIdle();
    expect(received).toHaveLength(4);
    const listed = (await (await fetch(`${test.sim.url}/__sim/webhook-attempts`)).json()) as {
      attempts: { eventId: string }[];
    };
    expect(listed.attempts.map((attempt) => attempt.eventId)).toEqual(received.slice(1));
    const memory = (await (await fetch(`${test.sim.url}/__sim/memory`)).json()) as {
      webhookAttempts: Record<string, number>;
    };
    expect(memory.webhookAttempts).toEqual({
      listed: 3,
      delivered: 4,
      failed: 0,
      dropped: 0,
      eventsDelivered: 4,
    });
  });
});
