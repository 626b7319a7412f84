import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import {
  ContractError,
  InternalServiceError,
  InvalidRequestError,
  NetworkError,
  TimeoutError,
  createUpstreamClient,
  errorBodies,
  operationIds,
  operations,
  type UpstreamClientOptions,
} from '../../src/upstream/index.ts';
import { transferFixture } from '../support/resource-fixtures.ts';
import { startRecordingServer, type RecordingServer } from './support/recording-server.ts';

const API_KEY = 'sk_test_do_not_leak_0123456789';
const MERCHANT_ID = 'mch_42';

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(() => {
  server.requests.length = 0;
});

function client(overrides: Partial<UpstreamClientOptions> = {}) {
  return createUpstreamClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    merchantId: MERCHANT_ID,
    environment: 'sandbox',
    rps: 1000,
    retryInitialDelayMs: 1,
    retryMaxDelayMs: 5,
    now: () => new Date(),
    ...overrides,
  });
}

function captureLogs() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, destination), lines };
}

describe('credential headers', () => {
  test.each(operationIds)('%s sends exactly the headers it lists', async (operationId) => {
    server.reply(() => ({ status: 404, body: errorBodies.notFound('nothing here') }));
    const operation = operations[operationId];
    await expect(
      client({ validateRequests: false }).call(operationId, {
        path: { id: 'x_1', refundId: 7, name: 'acme', reference: 'ref-1' },
        body: {},
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    const [request] = server.requests;
    expect(request?.method).toBe(operation.method);
    const headers = request!.headers;
    const expected = {
      all: { apikey: API_KEY, merchantid: MERCHANT_ID, environment: 'sandbox' },
      merchantId: { apikey: undefined, merchantid: MERCHANT_ID, environment: undefined },
      none: { apikey: undefined, merchantid: undefined, environment: undefined },
    }[operation.credentials];
    expect({
      apikey: headers.apikey,
      merchantid: headers.merchantid,
      environment: headers.environment,
    }).toEqual(expected);
  });

  it('re-sends once with all credentials when a credential-less operation gets 401, then keeps sending them', async () => {
    server.reply((request) =>
      request.headers.apikey === API_KEY
        ? { status: 200, body: { id: 'pl_1', status: 'closed' } }
        : { status: 401, body: errorBodies.wrongCredentials() },
    );
    const { logger, lines } = captureLogs();
    const upstream = client({ logger });
    await expect(upstream.closePaymentLink('pl_1')).resolves.toMatchObject({ id: 'pl_1' });
    await expect(upstream.closePaymentLink('pl_1')).resolves.toMatchObject({ id: 'pl_1' });
    expect(server.requests.map((r) => r.headers.apikey === API_KEY)).toEqual([false, true, true]);
    expect(upstream.stats().credentialFallbacks).toBe(1);
    const warnings = lines.filter((line) => line.includes('demanded credentials'));
    expect(warnings).toHaveLength(1);
    expect(lines.join('')).not.toContain(API_KEY);
  });

  it('does not loop when all credentials are refused', async () => {
    server.reply(() => ({ status: 401, body: errorBodies.wrongCredentials() }));
    const error = await client()
      .getReceiptHtml('tr_1')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'wrong_credentials', retryable: false });
    expect(server.requests).toHaveLength(2);
    expect((error as Error).message).not.toContain(API_KEY);
  });
});

describe('query on the wire', () => {
  it('sends the documented list defaults explicitly', async () => {
    server.reply(() => ({ status: 200, body: [] }));
    const now = new Date('2024-05-17T08:09:10.123Z');
    await client({ now: () => now }).listTransfers({ isDelegated: true });
    const query = server.requests[0]!.url.searchParams;
    expect(Object.fromEntries(query)).toEqual({
      from: '2024-05-01T00:00:00.000Z',
      to: '2024-05-17T08:09:10.123Z',
      page: '1',
      perPage: '10',
      isDelegated: 'true',
    });
  });

  it('repeats accountType and names, and writes dates with milliseconds', async () => {
    server.reply(() => ({ status: 200, body: [] }));
    await client().listProviders({ names: ['wave', 'orange'], status: 'enabled' });
    server.reply(() => ({ status: 200, body: { balances: [] } }));
    await client().getBalance({
      accountType: ['collection', 'transfer'],
      date: new Date(Date.UTC(2024, 0, 2)),
    });
    expect(server.requests[0]!.url.searchParams.getAll('names')).toEqual(['wave', 'orange']);
    const balanceQuery = server.requests[1]!.url.searchParams;
    expect(balanceQuery.getAll('accountType')).toEqual(['collection', 'transfer']);
    expect(balanceQuery.get('date')).toBe('2024-01-02T00:00:00.000Z');
  });

  it('refuses a body that breaks the document before sending anything', async () => {
    const error = await client()
      .createDelegatedIrtTransfer({ reference: 'irt-1', srcCountry: 'sen' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).issues[0]?.path).toBe('srcCountry');
    expect(server.requests).toHaveLength(0);
  });

  it("sends a body that breaks only paysync's reading, as given", async () => {
    server.reply(() => ({ status: 201, body: { id: 'wh_1' } }));
    await client().createWebhook({ url: 'not a url' });
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ url: 'not a url' });
  });
});

describe('contract checks on responses', () => {
  test.each([
    { name: 'negative amount', item: { amount: -5 }, path: '[1].amount' },
    { name: 'fractional amount', item: { amount: 10.5 }, path: '[1].amount' },
    { name: 'status outside the enum', item: { status: 'settled' }, path: '[1].status' },
    { name: 'id without tr_', item: { id: 'abc' }, path: '[1].id' },
    {
      name: 'fee as a float',
      item: { fees: [{ id: 'f', rate: 1, amount: 1.2, currency: 'XOF' }] },
      path: '[1].fees[0].amount',
    },
  ])('$name gives a ContractError naming $path', async ({ item, path }) => {
    const body = [transferFixture(), { ...transferFixture(), ...item }];
    server.reply(() => ({ status: 200, body }));
    const error = await client()
      .listTransfers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    const contractError = error as ContractError;
    expect(contractError.paths).toEqual([path]);
    expect(contractError.message).toContain(path);
    expect(contractError.operationId).toBe('listTransfers');
    expect(contractError.body).toEqual(body);
  });

  it('a missing required field is named', async () => {
    const { gatewayId: _omitted, ...withoutGateway } = transferFixture();
    server.reply(() => ({ status: 200, body: [withoutGateway] }));
    await expect(client().listTransfers()).rejects.toMatchObject({
      name: 'ContractError',
      paths: ['[0].gatewayId'],
    });
  });

  it('a body that is not JSON is a contract break', async () => {
    server.reply(() => ({ status: 200, body: '<html>' }));
    await expect(client().getBankCodes()).rejects.toMatchObject({ paths: ['(body)'] });
  });

  it('lets unknown fields through untouched', async () => {
    server.reply(() => ({ status: 200, body: [{ ...transferFixture(), brandNew: { x: 1 } }] }));
    const [transfer] = await client().listTransfers();
    expect(transfer).toMatchObject({ id: transferFixture().id, brandNew: { x: 1 } });
  });
});

describe('resilience', () => {
  it('retries a read on 500 and counts the retries', async () => {
    let calls = 0;
    server.reply(() =>
      ++calls <= 2
        ? { status: 500, body: errorBodies.internal() }
        : { status: 200, body: [transferFixture()] },
    );
    const { logger, lines } = captureLogs();
    const upstream = client({ logger });
    await expect(upstream.listTransfers()).resolves.toHaveLength(1);
    expect(upstream.stats()).toMatchObject({
      requests: 3,
      retries: 2,
      retriesByReason: { internal: 2 },
    });
    expect(lines.filter((line) => line.includes('retrying'))).toHaveLength(2);
    expect(lines.join('')).not.toContain(API_KEY);
  });

  it('gives up after maxRetries with the last error', async () => {
    server.reply(() => ({ status: 500, body: errorBodies.internal(['not_granted']) }));
    const error = await client({ maxRetries: 2 })
      .getBankCodes()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServiceError);
    expect((error as InternalServiceError).codes).toEqual(['not_granted']);
    expect(server.requests).toHaveLength(3);
  });

  it('never retries a write that failed with 500', async () => {
    server.reply(() => ({ status: 500, body: errorBodies.internal() }));
    await expect(client().createSubmerchant({ name: 'Shop' })).rejects.toBeInstanceOf(
      InternalServiceError,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('retries a throttled write, which the service did not process', async () => {
    let calls = 0;
    server.reply(() =>
      ++calls === 1
        ? { status: 429, body: errorBodies.throttled() }
        : { status: 201, body: { id: 'wh_1', url: 'https://example.com/hook' } },
    );
    await expect(
      client().createWebhook({ url: 'https://example.com/hook' }),
    ).resolves.toMatchObject({ id: 'wh_1' });
    expect(server.requests).toHaveLength(2);
  });

  it('waits at least Retry-After before retrying a 429', async () => {
    let calls = 0;
    server.reply(() =>
      ++calls === 1
        ? { status: 429, body: errorBodies.throttled(), headers: { 'retry-after': '1' } }
        : { status: 200, body: [] },
    );
    const started = performance.now();
    await client().listWebhooks();
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('times out a slow answer with a retryable TimeoutError', async () => {
    server.reply(() => ({ status: 200, body: [], delayMs: 400 }));
    const error = await client({ timeoutMs: 100, maxRetries: 0 })
      .listWebhooks()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).retryable).toBe(true);
  });

  it('maps a refused connection to a retryable NetworkError', async () => {
    const error = await createUpstreamClient({
      now: () => new Date(),
      baseUrl: 'http://127.0.0.1:1',
      apiKey: API_KEY,
      merchantId: MERCHANT_ID,
      maxRetries: 0,
    })
      .listWebhooks()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).retryable).toBe(true);
    expect((error as Error).message).not.toContain(API_KEY);
  });

  it('holds at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    server.reply(() => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      setTimeout(() => (inFlight -= 1), 30);
      return { status: 200, body: [], delayMs: 30 };
    });
    const upstream = client({ concurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, () => upstream.listWebhooks()));
    expect(peak).toBeLessThanOrEqual(3);
    expect(server.requests).toHaveLength(12);
  });
});
