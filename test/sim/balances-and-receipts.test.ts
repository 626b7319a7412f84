import { afterEach, describe, expect, it } from 'vitest';
import { irtBody, startTestSim, type TestSim } from './support/sim-fetch.ts';

type Balances = {
  date: string;
  balances: { accountType: string; currency: string; amount: number }[];
};

function amountOf(body: unknown, accountType: string): number | undefined {
  return (body as Balances).balances.find(
    (b) => b.accountType === accountType && b.currency === 'XOF',
  )?.amount;
}

describe('balances', () => {
  let test: TestSim | undefined;
  afterEach(async () => test?.sim.stop());

  it('derives balances from money that moved and answers them as of a past date', async () => {
    test = await startTestSim({ startAt: new Date('2030-01-10T10:00:00.000Z') });
    const { control } = test.sim;
    const start = await test.call('GET', '/balance');
    expect(amountOf(start.body, 'transfer')).toBe(1_000_000_000);
    expect(amountOf(start.body, 'collection')).toBe(0);

    const payment = control.createPaymentIntent({ amount: 25_000, phoneNumber: '+221760001234' });
    control.settle(payment.id, 'successful');
    const afterPayment = control.now();
    control.advance(60_000);
    const transfer = control.createTransfer({
      amount: 10_000,
      destination: { number: '+221770001234' },
    });
    control.settle(transfer.id, 'successful');

    const now = await test.call('GET', '/balance?accountType=collection&accountType=transfer');
    expect(amountOf(now.body, 'collection')).toBe(25_000);
    // 10 000 sent plus the 1 % fee.
    expect(amountOf(now.body, 'transfer')).toBe(1_000_000_000 - 10_000 - 100);
    expect((now.body as Balances).balances).toHaveLength(2);

    const past = await test.call('GET', `/balance?date=${encodeURIComponent(afterPayment)}`);
    expect((past.body as Balances).date).toBe(afterPayment);
    expect(amountOf(past.body, 'collection')).toBe(25_000);
    expect(amountOf(past.body, 'transfer')).toBe(1_000_000_000);

    // The start-up funding is dated before anything seeded (issue 20), so it predates the
    // start; the payment does not.
    const before = await test.call('GET', '/balance?date=2030-01-10T09:59:59.999Z');
    expect(amountOf(before.body, 'transfer')).toBe(1_000_000_000);
    expect(amountOf(before.body, 'collection')).toBe(0);
  });

  it('gives the money back on a successful transfer refund, and fails a transfer the account cannot pay', async () => {
    test = await startTestSim({
      initialBalances: [{ accountType: 'transfer', currency: 'XOF', amount: 50_000 }],
    });
    const { control } = test.sim;
    const paid = control.createTransfer({
      amount: 20_000,
      destination: { number: '+221770001234' },
    });
    control.advance(7_000);
    expect(control.item(paid.id)?.status).toBe('successful');
    const refund = await test.call('POST', '/refunds/refund', {
      body: { transactionId: paid.id, reason: 'duplicate' },
    });
    expect(refund.status).toBe(201);
    control.advance(7_000);
    const refunded = await test.call('GET', '/balance?accountType=transfer');
    expect(amountOf(refunded.body, 'transfer')).toBe(50_000 - 200);

    const tooBig = control.createTransfer({
      amount: 60_000,
      destination: { number: '+221770001234' },
    });
    control.advance(7_000);
    expect(control.item(tooBig.id)?.resource).toMatchObject({
      status: 'failed',
      failureCause: { code: 'insufficient_balance' },
    });
  });
});

describe('receipts', () => {
  let test: TestSim | undefined;
  afterEach(async () => test?.sim.stop());

  it('answers 404 for unknown ids, 409 before settlement and the HTML once settled', async () => {
    test = await startTestSim();
    expect((await test.call('GET', '/receipts/html/tr_unknown', { headers: {} })).status).toBe(404);
    const created = await test.call('POST', '/delegated/transfers/irt', {
      body: irtBody('+221770001234', 'rc-1'),
    });
    const id = (created.body as { id: string }).id;
    const early = await test.call('GET', `/receipts/html/${id}`, { headers: {} });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ httpStatus: 409, code: 'unsupported_action' });
    test.sim.control.advance(7_000);
    const settled = await test.call('GET', `/receipts/html/${id}`, { headers: {} });
    expect(settled.status).toBe(200);
    expect((settled.body as { view: string }).view).toMatch(
      /^<!doctype html>.*successful.*<\/html>$/s,
    );
    const byReceiptId = await test.call('GET', `/receipts/html/rc_${id}?isReceiptId=true`, {
      headers: {},
    });
    expect(byReceiptId.status).toBe(200);
  });

  it('has receipts for failed payments too', async () => {
    test = await startTestSim();
    const payment = test.sim.control.createPaymentIntent({
      amount: 500,
      phoneNumber: '+221760000002',
    });
    test.sim.control.advance(4_000);
    const receipt = await test.call('GET', `/receipts/html/${payment.id}`, { headers: {} });
    expect(receipt.status).toBe(200);
    expect((receipt.body as { view: string }).view).toContain('failed');
  });
});
