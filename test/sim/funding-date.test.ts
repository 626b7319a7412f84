import { afterEach, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from './support/sim-fetch.ts';

type Balances = { balances: { accountType: string; currency: string; amount: number }[] };
type Item = { id: string; createdAt: string; status: string; amount: number };

const transferXof = (body: unknown) =>
  (body as Balances).balances.find((b) => b.accountType === 'transfer' && b.currency === 'XOF')
    ?.amount;

describe("the simulator's start-up funding", () => {
  let test: TestSim | undefined;
  afterEach(async () => test?.sim.stop());

  it('is dated before anything seeded, so the balance history never contradicts the items', async () => {
    test = await startTestSim({
      startAt: new Date('2030-03-20T12:00:00.000Z'),
      initialBalances: [{ accountType: 'transfer', currency: 'XOF', amount: 5_000_000 }],
    });
    const seeded = await test.call('POST', '/__sim/seed', {
      body: {
        kind: 'transfer',
        count: 20,
        from: '2030-03-01T00:00:00.000Z',
        to: '2030-03-10T00:00:00.000Z',
        failureRate: 0,
        settle: true,
      },
    });
    expect(seeded.status).toBe(200);
    const list = await test.call(
      'GET',
      '/transfers?from=2030-03-01T00:00:00.000Z&to=2030-03-10T00:00:00.000Z&perPage=100',
    );
    const items = list.body as Item[];
    expect(items).toHaveLength(20);
    const earliest = items.map((i) => i.createdAt).sort()[0]!;
    expect(earliest < '2030-03-20T12:00:00.000Z').toBe(true);

    // Just before the first seeded item the merchant already holds the funding...
    const before = new Date(Date.parse(earliest) - 1).toISOString();
    const opening = await test.call('GET', `/balance?date=${encodeURIComponent(before)}`);
    expect(transferXof(opening.body)).toBe(5_000_000);

    // ...and the money the seeded items spent comes out of it, never below zero on the way.
    const truth = await test.call('GET', '/__sim/movements');
    const movements = (truth.body as { movements: { at: string; kind: string }[] }).movements;
    const funding = movements.filter((m) => m.kind === 'funding');
    expect(funding).toHaveLength(2);
    for (const m of funding) expect(m.at < earliest).toBe(true);
    for (const item of items) {
      const at = await test.call('GET', `/balance?date=${encodeURIComponent(item.createdAt)}`);
      expect(transferXof(at.body)).toBeGreaterThan(0);
    }
    const now = await test.call('GET', '/balance');
    const spent = 5_000_000 - transferXof(now.body)!;
    expect(spent).toBeGreaterThan(0);
    expect(transferXof(opening.body)! - spent).toBe(transferXof(now.body));
  });

  it('is dated again before anything seeded after a reset', async () => {
    test = await startTestSim({ startAt: new Date('2030-03-20T12:00:00.000Z') });
    expect((await test.call('POST', '/__sim/reset')).status).toBeLessThan(300);
    const before = await test.call('GET', '/balance?date=2030-03-01T00:00:00.000Z');
    expect(transferXof(before.body)).toBe(1_000_000_000);
  });
});
