import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_OTP } from '../../src/sim/index.ts';
import { irtBody, startTestSim, type TestSim } from './support/sim-fetch.ts';

type Resource = {
  id: string;
  status: string;
  failureCause?: { code: string };
  lastPaymentFailure?: { code: string };
  nextAction?: { type: string };
};

describe('deterministic sandbox outcomes', () => {
  let test: TestSim | undefined;
  afterEach(async () => test?.sim.stop());

  async function transferTo(msisdn: string): Promise<string> {
    const created = await test!.call('POST', '/delegated/transfers/irt', {
      body: irtBody(msisdn, `ref-${msisdn}`),
    });
    expect(created.status).toBe(201);
    return (created.body as Resource).id;
  }

  async function transferStatus(id: string): Promise<Resource | undefined> {
    const list = await test!.call('GET', '/transfers?perPage=100&from=2000-01-01T00:00:00.000Z');
    return (list.body as Resource[]).find((t) => t.id === id);
  }

  it.each([
    ['+221770009901', 'recipient_not_found'],
    ['+221770009902', 'recipient_limit_exceeded'],
    ['+221770009903', 'provider_unavailable'],
    ['+221770009904', 'invalid_sandbox_msisdn'],
  ])('a transfer to %s fails with failureCause %s after 7 s', async (msisdn, code) => {
    test = await startTestSim();
    const id = await transferTo(msisdn);
    test.sim.control.advance(6_999);
    expect((await transferStatus(id))?.status).toBe('pending');
    test.sim.control.advance(1);
    expect(await transferStatus(id)).toMatchObject({ status: 'failed', failureCause: { code } });
  });

  it('a transfer to a number ending in 9909 stays pending for 48 hours, then succeeds', async () => {
    test = await startTestSim();
    const id = await transferTo('+221770009909');
    // pending after 2 s, then 48 h.
    test.sim.control.advance(2_000 + 48 * 3_600_000 - 1);
    expect((await transferStatus(id))?.status).toBe('pending');
    test.sim.control.advance(1);
    expect((await transferStatus(id))?.status).toBe('successful');
  });

  it('any other number succeeds', async () => {
    test = await startTestSim();
    const id = await transferTo('+221770001234');
    test.sim.control.advance(7_000);
    expect((await transferStatus(id))?.status).toBe('successful');
  });

  const payment = (phoneNumber: string, extra: Record<string, string> = {}) => ({
    amount: 2_500,
    currency: 'XOF',
    purchaseReference: `order-${phoneNumber}-${Object.keys(extra).length}`,
    customerReference: 'customer-1',
    phoneNumber,
    ...extra,
  });

  it('a payment from a number ending in 0001 needs an OTP (nextAction otp), then succeeds with it', async () => {
    test = await startTestSim();
    const created = await test.call('POST', '/delegated/payments', {
      body: payment('+221760000001'),
    });
    const id = (created.body as Resource).id;
    test.sim.control.advance(1_000);
    const waiting = await test.call('GET', `/terminal/payments/${id}`);
    expect(waiting.body).toMatchObject({ status: 'action_required', nextAction: { type: 'otp' } });
    const answered = await test.call('POST', `/__sim/payment-intents/${id}/otp`, {
      body: { otp: SANDBOX_OTP },
    });
    expect(answered.status).toBe(200);
    test.sim.control.advance(3_000);
    const paid = await test.call('GET', `/terminal/payments/${id}`);
    expect(paid.body).toMatchObject({ status: 'successful' });
    expect((paid.body as Resource).nextAction).toBeUndefined();
  });

  it('an OTP payment sent with the sandbox OTP skips action_required; a wrong OTP fails it', async () => {
    test = await startTestSim();
    const good = await test.call('POST', '/delegated/payments', {
      body: payment('+221760000001', { otp: SANDBOX_OTP }),
    });
    const bad = await test.call('POST', '/delegated/payments', {
      body: payment('+221760000001', { otp: '000000', x: 'y' }),
    });
    test.sim.control.advance(4_000);
    expect(
      (await test.call('GET', `/terminal/payments/${(good.body as Resource).id}`)).body,
    ).toMatchObject({ status: 'successful' });
    expect(
      (await test.call('GET', `/terminal/payments/${(bad.body as Resource).id}`)).body,
    ).toMatchObject({
      status: 'failed',
      lastPaymentFailure: { code: 'wrong_otp' },
    });
  });

  it('a payment from 0002 fails with insufficient_funds, and a new attempt with the same purchaseReference pays it', async () => {
    test = await startTestSim();
    const first = await test.call('POST', '/delegated/payments', {
      body: payment('+221760000002'),
    });
    const id = (first.body as Resource).id;
    test.sim.control.advance(4_000);
    expect((await test.call('GET', `/terminal/payments/${id}`)).body).toMatchObject({
      status: 'failed',
      lastPaymentFailure: { code: 'insufficient_funds' },
    });
    const retry = await test.call('POST', '/delegated/payments', {
      body: { ...payment('+221760001234'), purchaseReference: 'order-+221760000002-0' },
    });
    expect((retry.body as Resource).id).toBe(id);
    test.sim.control.advance(3_000);
    const paid = await test.call('GET', `/terminal/payments/${id}`);
    expect(paid.body).toMatchObject({ status: 'successful' });
    expect((paid.body as { payments: unknown[] }).payments).toHaveLength(2);
    expect(test.sim.control.item(id)?.history.map((h) => h.status)).toEqual([
      'payment_required',
      'processing',
      'failed',
      'processing',
      'successful',
    ]);
  });

  it('a transfer to 9905 is refunded into pending_manual; a payment from 0006 is refunded into failed', async () => {
    test = await startTestSim();
    const { control } = test.sim;
    const transfer = control.createTransfer({
      amount: 1_000,
      destination: { number: '+221770009905' },
    });
    control.advance(7_000);
    const refund = await test.call('POST', '/refunds', {
      body: { transactionId: transfer.id },
      headers: { MerchantId: 'mch_test' },
    });
    expect(refund.status).toBe(201);
    const refundId = (refund.body as { id: number }).id;
    expect(typeof refundId).toBe('number');
    control.advance(7_000);
    expect(
      (await test.call('GET', `/refunds/${refundId}`, { headers: { MerchantId: 'mch_test' } }))
        .body,
    ).toMatchObject({ status: 'pending_manual' });

    const intent = control.createPaymentIntent({ amount: 1_000, phoneNumber: '+221760000006' });
    control.advance(4_000);
    const paymentRefund = await test.call('POST', `/payments-refund/${intent.id}/refund`, {
      body: {},
    });
    expect(paymentRefund.status).toBe(202);
    control.advance(7_000);
    const status = await test.call(
      'GET',
      `/payments-refund/${(paymentRefund.body as { id: number }).id}/status`,
    );
    expect(status.body).toMatchObject({
      status: 'failed',
      failureCause: { code: 'refund_rejected' },
    });
  });
});
