import { afterEach, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from './support/sim-fetch.ts';

type Item = { id: string; createdAt: string; mode: string };

describe('list windows and pages', () => {
  let test: TestSim | undefined;
  afterEach(async () => test?.sim.stop());

  it('defaults to page 1 of 10, from the first day of the month to now, newest first', async () => {
    test = await startTestSim({ startAt: new Date('2030-05-01T00:00:05.000Z') });
    const { control } = test.sim;
    const lastMonth = control.seed({
      kind: 'payment_intent',
      count: 3,
      from: '2030-04-30T23:00:00.000Z',
      to: '2030-04-30T23:59:59.999Z',
    });
    const thisMonth = [];
    for (let i = 0; i < 12; i += 1) {
      thisMonth.push(control.createPaymentIntent({ amount: 100 + i }).id);
      control.advance(1);
    }
    const first = await test.call('GET', '/payment-intents');
    const ids = (first.body as Item[]).map((item) => item.id);
    expect(ids).toEqual([...thisMonth].reverse().slice(0, 10));
    const second = await test.call('GET', '/payment-intents?page=2');
    expect((second.body as Item[]).map((item) => item.id)).toEqual([thisMonth[1], thisMonth[0]]);
    expect(ids.some((id) => lastMonth.ids.includes(id))).toBe(false);
  });

  it('includes both bounds, to the millisecond', async () => {
    test = await startTestSim({ startAt: new Date('2030-05-10T10:00:00.000Z') });
    const { control } = test.sim;
    const a = control.createPaymentIntent({ amount: 1 });
    control.advance(1);
    const b = control.createPaymentIntent({ amount: 2 });
    control.advance(1);
    const c = control.createPaymentIntent({ amount: 3 });
    const window = await test.call(
      'GET',
      `/payment-intents?from=2030-05-10T10:00:00.001Z&to=2030-05-10T10:00:00.002Z`,
    );
    expect((window.body as Item[]).map((item) => item.id).sort()).toEqual([b.id, c.id].sort());
    expect((window.body as Item[]).map((item) => item.id)).not.toContain(a.id);
  });

  it('keeps sandbox and live apart, and gives created items the mode of the Environment header', async () => {
    test = await startTestSim();
    const live = await test.call('POST', '/delegated/payments', {
      body: { amount: 100, currency: 'XOF', purchaseReference: 'l-1', customerReference: 'c' },
      headers: test.credentialHeaders('live'),
    });
    expect((live.body as Item).mode).toBe('live');
    expect((await test.call('GET', '/payment-intents')).body).toEqual([]);
    expect((await test.call('GET', `/terminal/payments/${(live.body as Item).id}`)).status).toBe(
      404,
    );
    const liveList = await test.call('GET', '/payment-intents', {
      headers: test.credentialHeaders('live'),
    });
    expect(liveList.body).toHaveLength(1);
  });

  it('orders lists as the listOrder fault says', async () => {
    test = await startTestSim({ startAt: new Date('2030-05-10T10:00:00.000Z') });
    const { control } = test.sim;
    const ids = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(control.createPaymentIntent({ amount: 10 + i }).id);
      control.advance(10);
    }
    control.setFaults({ listOrder: 'createdAt-asc' });
    expect(((await test.call('GET', '/payment-intents')).body as Item[]).map((i) => i.id)).toEqual(
      ids,
    );
    control.touch(ids[0] as string);
    control.setFaults({ listOrder: 'updatedAt-desc' });
    expect(((await test.call('GET', '/payment-intents')).body as Item[])[0]?.id).toBe(ids[0]);
  });
});
