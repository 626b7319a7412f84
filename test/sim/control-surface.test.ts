import { afterEach, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from './support/sim-fetch.ts';

type View = { id: string; status: string; history: { status: string; at: string }[] };

describe('control surface over HTTP (/__sim)', () => {
  let test: TestSim | undefined;
  afterEach(async () => test?.sim.stop());

  it('creates a transfer, moves the clock, settles and shows the ground truth', async () => {
    test = await startTestSim({ startAt: new Date('2030-03-05T08:00:00.000Z') });
    const created = await test.call('POST', '/__sim/transfers', {
      body: { amount: 5_000, destination: { number: '+221770001234' } },
    });
    expect(created.status).toBe(200);
    const transfer = created.body as View;
    expect(transfer.id).toMatch(/^tr_/);
    expect(transfer.status).toBe('created');

    const advanced = await test.call('POST', '/__sim/clock/advance', { body: { ms: 2_000 } });
    expect(advanced.body).toEqual({ now: '2030-03-05T08:00:02.000Z', transitions: 1 });
    const settled = await test.call('POST', `/__sim/items/${transfer.id}/settle`, {
      body: { status: 'failed' },
    });
    expect((settled.body as View).history.map((h) => [h.status, h.at])).toEqual([
      ['created', '2030-03-05T08:00:00.000Z'],
      ['pending', '2030-03-05T08:00:02.000Z'],
      ['failed', '2030-03-05T08:00:02.000Z'],
    ]);
    const impossible = await test.call('POST', `/__sim/items/${transfer.id}/settle`, {
      body: { status: 'successful' },
    });
    expect(impossible.status).toBe(409);

    const truth = await test.call('GET', '/__sim/ground-truth?kind=transfer');
    const body = truth.body as {
      items: View[];
      movements: { kind: string }[];
      balances: { sandbox: unknown[] };
    };
    expect(body.items.map((item) => item.status)).toEqual(['failed']);
    expect(body.movements.every((m) => m.kind === 'funding')).toBe(true);
    expect(body.balances.sandbox.length).toBeGreaterThan(0);
  });

  it('seeds many items fast inside a window, visible through the API', async () => {
    test = await startTestSim({ startAt: new Date('2030-03-20T12:00:00.000Z') });
    const seeded = await test.call('POST', '/__sim/seed', {
      body: {
        kind: 'transfer',
        count: 2_000,
        from: '2030-03-01T00:00:00.000Z',
        to: '2030-03-10T00:00:00.000Z',
      },
    });
    expect((seeded.body as { count: number }).count).toBe(2_000);
    const page = await test.call(
      'GET',
      '/transfers?from=2030-03-01T00:00:00.000Z&to=2030-03-10T00:00:00.000Z&perPage=100&page=20',
    );
    expect(page.body).toHaveLength(100);
    const statuses = new Set((page.body as View[]).map((t) => t.status));
    expect([...statuses].every((status) => status === 'successful' || status === 'failed')).toBe(
      true,
    );
  });

  it('sets fault rates: 429s, latency and contract-breaking responses', async () => {
    test = await startTestSim();
    await test.call('PATCH', '/__sim/faults', {
      body: { throttleRate: 1, operations: ['listTransfers'] },
    });
    const throttled = await test.call('GET', '/transfers');
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({ status: 429, error: expect.any(String) });

    await test.call('PUT', '/__sim/faults', {
      body: { throttleRate: 0, latencyMs: 150, operations: [] },
    });
    const started = performance.now();
    await test.call('GET', '/webhooks');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);

    await test.call('PATCH', '/__sim/faults', {
      body: { latencyMs: 0, contractBreakRate: 1, contractBreak: 'negative_amount' },
    });
    test.sim.control.createTransfer({ amount: 700, destination: { number: '+221770001234' } });
    const broken = await test.call('GET', '/transfers');
    expect(broken.headers.get('x-sim-contract-break')).toBe('amount');
    expect((broken.body as { amount: number }[])[0]?.amount).toBe(-700);

    const bad = await test.call('PATCH', '/__sim/faults', { body: { errorRate: 3 } });
    expect(bad.status).toBe(400);
  });

  it('injects one error for the next matching request', async () => {
    test = await startTestSim();
    await test.call('POST', '/__sim/errors', {
      body: { status: 403, operationId: 'listPaymentLinks', count: 1 },
    });
    const forbidden = await test.call('GET', '/payment-links');
    expect(forbidden.status).toBe(403);
    expect((await test.call('GET', '/payment-links')).status).toBe(200);
  });

  it('resets to a fresh start', async () => {
    test = await startTestSim();
    test.sim.control.createPaymentIntent({ amount: 100 });
    await test.call('POST', '/webhooks', { body: { url: 'http://127.0.0.1:9/' } });
    expect((await test.call('POST', '/__sim/reset')).status).toBe(200);
    const truth = await test.call('GET', '/__sim/ground-truth');
    expect((truth.body as { items: unknown[] }).items).toEqual([]);
    expect((await test.call('GET', '/webhooks')).body).toEqual([]);
    expect((await test.call('GET', '/__sim/nope')).status).toBe(404);
  });
});
