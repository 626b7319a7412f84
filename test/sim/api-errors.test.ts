import { afterEach, describe, expect, it } from 'vitest';
import { irtBody, startTestSim, type TestSim } from './support/sim-fetch.ts';

describe('documented errors', () => {
  let test: TestSim | undefined;
  afterEach(async () => test?.sim.stop());

  it.each([
    ['a wrong ApiKey', { ApiKey: 'nope', MerchantId: 'mch_test', Environment: 'sandbox' }],
    [
      'a wrong MerchantId',
      { ApiKey: 'sk_test_key', MerchantId: 'mch_other', Environment: 'sandbox' },
    ],
    ['no credentials', {}],
  ])('answers %s with the 401 wrong_credentials body', async (_label, headers) => {
    test = await startTestSim();
    const response = await test.call('GET', '/balance', { headers });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      status: 401,
      error: {
        type: 'authorization_error',
        code: 'wrong_credentials',
        message: expect.any(String),
      },
    });
  });

  it('needs only MerchantId on the refund operations that list only it, and nothing on /data', async () => {
    test = await startTestSim();
    expect(
      (await test.call('GET', '/refunds', { headers: { MerchantId: 'mch_test' } })).status,
    ).toBe(200);
    expect((await test.call('GET', '/refunds', { headers: {} })).status).toBe(401);
    expect((await test.call('GET', '/data/bank-codes', { headers: {} })).status).toBe(200);
  });

  it('demands every credential everywhere with strictCredentials', async () => {
    test = await startTestSim({ strictCredentials: true });
    expect((await test.call('GET', '/data/countries', { headers: {} })).status).toBe(401);
    expect((await test.call('GET', '/data/countries')).status).toBe(200);
  });

  it('throttles beyond rps with the documented 429 body and a Retry-After header', async () => {
    test = await startTestSim({ rps: 5 });
    // 30 at once: a bucket of 5 refilled 5 a second throttles most of them even when a busy
    // machine spreads the burst over a few seconds.
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => test!.call('GET', '/balance')),
    );
    const throttled = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(5);
    expect(throttled.length).toBeGreaterThanOrEqual(5);
    expect(throttled[0]?.body).toEqual({ status: 429, error: expect.any(String) });
    expect(throttled[0]?.headers.get('retry-after')).toMatch(/^\d+$/);
    // Operations that do not document 429 are not throttled.
    expect((await test.call('GET', '/webhooks')).status).toBe(200);
  });

  it('answers invalid input with the 400 validation body listing every violated rule', async () => {
    test = await startTestSim();
    const response = await test.call('POST', '/delegated/payments', {
      body: { amount: -5, currency: 'xof' },
    });
    expect(response.status).toBe(400);
    const body = response.body as {
      status: number;
      error: { statusCode: number; message: string[]; error: string };
    };
    expect(body.status).toBe(400);
    expect(body.error.statusCode).toBe(400);
    expect(body.error.error).toBe('Bad Request');
    expect(body.error.message.join('\n')).toMatch(/amount/);
    expect(body.error.message.join('\n')).toMatch(/currency/);
    expect(body.error.message.join('\n')).toMatch(/purchaseReference/);
  });

  it('answers an unknown provider on a delegated IRT transfer with wrong_provider and a request_id', async () => {
    test = await startTestSim();
    const body = irtBody('+221770001234', 'wp-1');
    body.destination.provider = 'pigeon_post';
    const response = await test.call('POST', '/delegated/transfers/irt', { body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      status: 400,
      code: 'wrong_provider',
      message: expect.stringContaining('pigeon_post'),
      request_id: expect.stringMatching(/^req_/),
    });
  });

  it('answers an unknown resource with the 404 body and an unsupported action with the 409 body', async () => {
    test = await startTestSim();
    const missing = await test.call('GET', '/terminal/payments/pi_missing');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      httpStatus: 404,
      message: expect.stringContaining('pi_missing'),
      error: 'Not found',
    });
    const transfer = test.sim.control.createTransfer({
      amount: 1000,
      destination: { number: '+221770001111' },
    });
    const refund = await test.call('POST', '/refunds/refund', {
      body: { transactionId: transfer.id },
    });
    expect(refund.status).toBe(409);
    expect(refund.body).toEqual({
      httpStatus: 409,
      type: 'invalid_request',
      code: 'unsupported_action',
      message: expect.any(String),
    });
  });

  it('answers live requests with 403 when live mode is not granted', async () => {
    test = await startTestSim({ liveModeGranted: false });
    const forbidden = await test.call('GET', '/payment-links', {
      headers: test.credentialHeaders('live'),
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({
      status: 403,
      error: { statusCode: 403, message: 'Forbidden', error: expect.any(String) },
    });
    const balance = await test.call('GET', '/balance', { headers: test.credentialHeaders('live') });
    expect(balance.status).toBe(500);
    expect(balance.body).toEqual({
      type: 'internal_error',
      code: ['live_mode_not_granted'],
      message: expect.any(String),
    });
  });

  it('injects 500s with the documented body at the configured rate', async () => {
    test = await startTestSim({ faults: { errorRate: 1, operations: ['getBalance'] } });
    const failed = await test.call('GET', '/balance');
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({
      type: 'internal_error',
      code: ['internal_error'],
      message: expect.any(String),
    });
    expect((await test.call('GET', '/webhooks')).status).toBe(200);
  });
});
