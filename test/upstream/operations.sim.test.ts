import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import {
  ForbiddenError,
  InternalServiceError,
  NotFoundError,
  ThrottledError,
  UnsupportedActionError,
  ValidationError,
  WrongCredentialsError,
  WrongProviderError,
  errorKinds,
  operationIds,
  operations,
  type ErrorKind,
  type OperationId,
  type UpstreamClient,
  type UpstreamError,
} from '../../src/upstream/index.ts';
import { clientFor, startSimulator, type RunningSimulator } from './support/sim-fixture.ts';

let sim: RunningSimulator;
let upstream: UpstreamClient;
/** Sends what the test says, so the simulator's own validation answers. */
let unchecked: UpstreamClient;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 7 });
  upstream = clientFor(sim);
  unchecked = clientFor(sim, { validateRequests: false, maxRetries: 0 });
});
afterAll(async () => {
  await sim.stop();
});
beforeEach(() => {
  sim.control.reset();
});

function settledTransfer(): string {
  const transfer = sim.control.createTransfer({
    amount: 5000,
    destination: { number: '+221770001111' },
  });
  sim.control.settle(transfer.id);
  return transfer.id;
}

async function settledPayment(): Promise<string> {
  const intent = await upstream.createDelegatedPayment({
    amount: 2500,
    currency: 'XOF',
    purchaseReference: `order-${Math.random()}`,
    customerReference: 'cust-1',
    phoneNumber: '+221760001111',
  });
  sim.control.settle(intent.id);
  return intent.id;
}

/** One successful call per operation, with a check of the typed result. */
const successCases: Record<OperationId, () => Promise<void>> = {
  async listCountries() {
    const countries = await upstream.listCountries({ method: 'mobile_money' });
    expect(countries.length).toBeGreaterThan(0);
  },
  async listProviders() {
    const providers = await upstream.listProviders({ names: ['orange_money'], status: 'enabled' });
    expect(providers.length).toBeGreaterThan(0);
    expect(providers.every((p) => p.name === 'orange_money')).toBe(true);
  },
  async getBankCodes() {
    const codes = await upstream.getBankCodes();
    const banks = Object.values(codes).flat();
    expect(banks.length).toBeGreaterThan(0);
    expect(banks[0]).toMatchObject({ bankName: expect.any(String), bankCode: expect.any(String) });
  },
  async createWebhook() {
    const webhook = await upstream.createWebhook({ url: 'http://127.0.0.1:9/hook' });
    expect(webhook.id).toMatch(/^wh_/);
    expect(webhook.secret).toMatch(/^whsec_/);
  },
  async listWebhooks() {
    const { id } = await upstream.createWebhook({ url: 'http://127.0.0.1:9/a' });
    expect((await upstream.listWebhooks()).map((w) => w.id)).toEqual([id]);
  },
  async getWebhook() {
    const { id } = await upstream.createWebhook({ url: 'http://127.0.0.1:9/a' });
    expect(await upstream.getWebhook(id)).toMatchObject({ id, url: 'http://127.0.0.1:9/a' });
  },
  async updateWebhook() {
    const { id } = await upstream.createWebhook({ url: 'http://127.0.0.1:9/a' });
    const updated = await upstream.updateWebhook(id, { url: 'http://127.0.0.1:9/b' });
    expect(updated.url).toBe('http://127.0.0.1:9/b');
  },
  async deleteWebhook() {
    const { id } = await upstream.createWebhook({ url: 'http://127.0.0.1:9/a' });
    await expect(upstream.deleteWebhook(id)).resolves.toBeUndefined();
    await expect(upstream.getWebhook(id)).rejects.toBeInstanceOf(NotFoundError);
  },
  async createTransferRefund() {
    const transactionId = settledTransfer();
    const refund = await upstream.createTransferRefund({ transactionId, reason: 'duplicate' });
    expect(refund).toMatchObject({ transactionId });
  },
  async createRefund() {
    const transactionId = settledTransfer();
    expect(await upstream.createRefund({ transactionId })).toMatchObject({ transactionId });
  },
  async listRefunds() {
    const transactionId = settledTransfer();
    await upstream.createRefund({ transactionId });
    const list = await upstream.listRefunds();
    expect(JSON.stringify(list)).toContain(transactionId);
  },
  async getRefund() {
    const transactionId = settledTransfer();
    const created = await upstream.createRefund({ transactionId });
    const refund = await upstream.getRefund(created.id as number);
    expect(refund).toMatchObject({ transactionId, amount: 5000, currency: 'XOF' });
    expect(['created', 'pending', 'pending_manual', 'successful', 'failed']).toContain(
      refund.status,
    );
  },
  async createPaymentRefund() {
    const paymentId = await settledPayment();
    expect(await upstream.createPaymentRefund(paymentId, { reason: 'returned' })).toMatchObject({
      paymentIntentId: paymentId,
    });
  },
  async getPaymentRefundStatus() {
    const paymentId = await settledPayment();
    const created = await upstream.createPaymentRefund(paymentId);
    const status = await upstream.getPaymentRefundStatus(created.id as number);
    expect(status).toMatchObject({ id: created.id });
  },
  async getBalance() {
    const balance = await upstream.getBalance({ accountType: ['transfer'], currency: 'XOF' });
    expect(balance).toMatchObject({ balances: [{ accountType: 'transfer', currency: 'XOF' }] });
  },
  async createPaymentLink() {
    const link = await upstream.createPaymentLink({
      amount: 1000,
      currency: 'XOF',
      purchaseReference: 'p-1',
    });
    expect(link.id).toMatch(/^pl_/);
  },
  async listPaymentLinks() {
    await upstream.createPaymentLink({ amount: 1000, currency: 'XOF', purchaseReference: 'p-2' });
    const links = await upstream.listPaymentLinks({ purchaseReference: 'p-2', status: 'active' });
    expect(links).toHaveLength(1);
  },
  async getPaymentLink() {
    const { id } = await upstream.createPaymentLink({
      amount: 1000,
      currency: 'XOF',
      purchaseReference: 'p-3',
    });
    expect(await upstream.getPaymentLink(id)).toMatchObject({ id });
  },
  async closePaymentLink() {
    const { id } = await upstream.createPaymentLink({
      amount: 1000,
      currency: 'XOF',
      purchaseReference: 'p-4',
    });
    expect(await upstream.closePaymentLink(id)).toMatchObject({ id, status: 'closed' });
  },
  async createSubscriptionLink() {
    const link = await upstream.createSubscriptionLink({ customerReference: 'cust-9' });
    expect(link.id).toMatch(/^pl_/);
  },
  async createDelegatedPayment() {
    const intent = await upstream.createDelegatedPayment({
      amount: 2500,
      currency: 'XOF',
      purchaseReference: 'order-1',
      customerReference: 'cust-1',
      phoneNumber: '+221760000001',
    });
    expect(intent).toMatchObject({ amount: 2500, currency: 'XOF', mode: 'sandbox' });
    expect(intent.id).toMatch(/^pi_/);
  },
  async getPaymentIntent() {
    const id = await settledPayment();
    const intent = await upstream.getPaymentIntent(id);
    expect(intent).toMatchObject({ id, status: 'successful' });
  },
  async listPaymentIntents() {
    const id = await settledPayment();
    const page = await upstream.listPaymentIntents({ perPage: 50 });
    expect(page.map((i) => i.id)).toContain(id);
  },
  async listTransfers() {
    const id = settledTransfer();
    const page = await upstream.listTransfers({ isDelegated: false });
    expect(page.find((t) => t.id === id)).toMatchObject({ status: 'successful', isIrt: false });
  },
  async createDelegatedIrtTransfer() {
    const transfer = await upstream.createDelegatedIrtTransfer({
      reference: 'irt-1',
      srcAmount: 10_000,
      srcCurrency: 'XOF',
      destination: {
        type: 'mobile_money',
        country: 'SN',
        msisdn: '+221770002222',
        provider: 'orange_money',
      },
    });
    expect(transfer).toMatchObject({ reference: 'irt-1', isIrt: true, isDelegated: true });
    expect(transfer.id).toMatch(/^tr_/);
  },
  async createSubmerchant() {
    const submerchant = await upstream.createSubmerchant({ name: 'Corner shop', city: 'Dakar' });
    expect(submerchant).toMatchObject({ name: 'Corner shop', isActive: expect.any(Boolean) });
  },
  async putKyb() {
    const kyb = await upstream.putKyb('acme', { name: 'acme', businessType: 'retail' });
    expect(kyb).toMatchObject({ name: 'acme', id: expect.any(Number) });
  },
  async getKyb() {
    await upstream.putKyb('acme', { name: 'acme' });
    expect(await upstream.getKyb('acme')).toMatchObject({ name: 'acme', deletedAt: null });
  },
  async deleteKybTransaction() {
    // The simulator's "kyb transaction" is a transfer declared for an aggregated merchant.
    await upstream.putKyb('acme', { name: 'acme' });
    sim.control.createTransfer({
      amount: 5000,
      reference: 'kyb-ref-1',
      aggregatedMerchantId: 'acme',
      destination: { number: '+221770001111' },
    });
    await expect(upstream.deleteKybTransaction('kyb-ref-1')).resolves.toBeUndefined();
    await expect(upstream.deleteKybTransaction('kyb-ref-1')).rejects.toBeInstanceOf(NotFoundError);
  },
  async getReceiptHtml() {
    const id = settledTransfer();
    const receipt = await upstream.getReceiptHtml(id, { isReceiptId: false });
    expect(receipt.view).toContain(id);
  },
};

describe('every operation against the simulator', () => {
  test.each(operationIds)('%s succeeds with a typed, validated result', async (operationId) => {
    await successCases[operationId]();
  });
});

const ERROR_CLASSES: Record<ErrorKind, abstract new (...args: never[]) => UpstreamError> = {
  validation: ValidationError,
  wrong_provider: WrongProviderError,
  wrong_credentials: WrongCredentialsError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  unsupported_action: UnsupportedActionError,
  throttled: ThrottledError,
  internal: InternalServiceError,
};

function pathFor(operationId: OperationId): Record<string, string | number> {
  return operations[operationId].path.includes('{refundId}')
    ? { refundId: 1 }
    : { id: 'x_1', name: 'acme', reference: 'ref-1' };
}

/** Every (operation, documented status) the simulator can be made to answer. */
const injectable = operationIds.flatMap((operationId) =>
  operations[operationId].errors
    .filter((kind) => kind !== 'validation' && kind !== 'wrong_provider')
    .map((kind) => ({ operationId, kind, status: errorKinds[kind].status })),
);

describe('documented error statuses, injected', () => {
  test.each(injectable)(
    '$operationId answers $status as $kind',
    async ({ operationId, kind, status }) => {
      sim.control.injectErrors({
        status: status as 401,
        operationId,
        count: 1,
        codes: ['not_granted'],
      });
      // A client of its own: an injected 429 holds its client back for the Retry-After second,
      // which the next case would otherwise sit out.
      const client = clientFor(sim, { validateRequests: false, maxRetries: 0 });
      const error = (await client
        .call(operationId, { path: pathFor(operationId), body: {} })
        .catch((e: unknown) => e)
        .finally(() => client.close())) as UpstreamError;
      expect(error).toBeInstanceOf(ERROR_CLASSES[kind]);
      expect(error.status).toBe(status);
      expect(error.bodyMatchesContract).toBe(true);
      expect(errorKinds[kind].body.safeParse(error.body).success).toBe(true);
      if (error instanceof InternalServiceError) expect(error.codes).toEqual(['not_granted']);
    },
  );
});

describe('documented error statuses, from real conditions', () => {
  const withCredentials = operationIds.filter((id) => operations[id].credentials !== 'none');
  test.each(withCredentials)(
    '%s: a wrong API key or merchant id gives 401 wrong_credentials',
    async (operationId) => {
      const wrong = clientFor(sim, {
        apiKey: 'sk_wrong',
        merchantId: 'mch_wrong',
        validateRequests: false,
        maxRetries: 0,
      });
      const error = (await wrong
        .call(operationId, { path: pathFor(operationId), body: {} })
        .catch((e: unknown) => e)) as UpstreamError;
      expect(error).toBeInstanceOf(WrongCredentialsError);
      expect(error.body).toMatchObject({
        status: 401,
        error: { type: 'authorization_error', code: 'wrong_credentials' },
      });
    },
  );

  test.each([
    { operationId: 'listCountries', query: { method: 'carrier_pigeon' } },
    { operationId: 'listProviders', query: { status: 'sleeping' } },
    { operationId: 'listPaymentLinks', query: { status: 'lost' } },
    { operationId: 'listTransfers', query: { page: 0 } },
    { operationId: 'createTransferRefund', body: { reason: 'no transaction id' } },
    { operationId: 'createPaymentRefund', path: { id: 'pi_1' }, body: { amount: -1 } },
    { operationId: 'getPaymentRefundStatus', path: { refundId: 'abc' } },
    {
      operationId: 'createPaymentLink',
      body: { amount: 0, currency: 'XOF', purchaseReference: 'p' },
    },
    { operationId: 'createSubscriptionLink', body: {} },
    { operationId: 'createDelegatedPayment', body: { amount: 1.5 } },
    { operationId: 'createDelegatedIrtTransfer', body: { srcAmount: 100 } },
  ] as const)('$operationId: invalid input gives 400 with the list of messages', async (input) => {
    const error = (await unchecked
      .call(input.operationId, input)
      .catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.messages.length).toBeGreaterThan(0);
    expect(error.body).toMatchObject({
      status: 400,
      error: { statusCode: 400, error: 'Bad Request' },
    });
  });

  it('createDelegatedIrtTransfer: an unknown provider gives 400 wrong_provider with its request_id', async () => {
    const error = await upstream
      .createDelegatedIrtTransfer({
        reference: 'irt-bad',
        srcAmount: 1000,
        srcCurrency: 'XOF',
        destination: {
          type: 'mobile_money',
          country: 'SN',
          msisdn: '+221770003333',
          provider: 'nope',
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WrongProviderError);
    expect((error as WrongProviderError).requestId).toMatch(/\S/);
  });

  test.each([
    ['getWebhook', () => upstream.getWebhook('wh_missing')],
    ['updateWebhook', () => upstream.updateWebhook('wh_missing', { description: 'x' })],
    ['deleteWebhook', () => upstream.deleteWebhook('wh_missing')],
    ['getRefund', () => upstream.getRefund(999_999)],
    ['getPaymentRefundStatus', () => upstream.getPaymentRefundStatus(999_999)],
    ['createPaymentRefund', () => upstream.createPaymentRefund('pi_missing')],
    ['createTransferRefund', () => upstream.createTransferRefund({ transactionId: 'tr_missing' })],
    ['getPaymentLink', () => upstream.getPaymentLink('pl_missing')],
    ['closePaymentLink', () => upstream.closePaymentLink('pl_missing')],
    ['getPaymentIntent', () => upstream.getPaymentIntent('pi_missing')],
    ['listTransfers', () => upstream.listTransfers({ reference: 'no-such-reference' })],
    ['getKyb', () => upstream.getKyb('nobody')],
    ['deleteKybTransaction', () => upstream.deleteKybTransaction('no-such-reference')],
    ['getReceiptHtml', () => upstream.getReceiptHtml('tr_missing')],
  ] as const)('%s: an unknown resource gives 404 with the documented body', async (_name, call) => {
    const error = (await call().catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.body).toMatchObject({ httpStatus: 404, error: 'Not found' });
  });

  it('getReceiptHtml: before settlement gives 409 unsupported_action', async () => {
    const transfer = sim.control.createTransfer({
      amount: 5000,
      destination: { number: '+221770009909' },
    });
    const error = await upstream.getReceiptHtml(transfer.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedActionError);
    expect((error as UnsupportedActionError).body).toMatchObject({
      httpStatus: 409,
      code: 'unsupported_action',
    });
  });

  it('createTransferRefund: refunding twice gives 409 unsupported_action', async () => {
    const transactionId = settledTransfer();
    await upstream.createTransferRefund({ transactionId });
    await expect(upstream.createTransferRefund({ transactionId })).rejects.toBeInstanceOf(
      UnsupportedActionError,
    );
  });

  it('live mode not granted gives 403 on an operation that documents it', async () => {
    const live = await startSimulator({ port: 0, liveModeGranted: false });
    try {
      const error = await clientFor(live, { environment: 'live' })
        .listPaymentLinks()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ForbiddenError);
    } finally {
      await live.stop();
    }
  });

  it('with strict credentials the client falls back to sending all three headers', async () => {
    const strict = await startSimulator({ port: 0, strictCredentials: true });
    try {
      const client = clientFor(strict);
      await expect(client.listCountries()).resolves.not.toHaveLength(0);
      expect(client.stats().credentialFallbacks).toBe(1);
    } finally {
      await strict.stop();
    }
  });
});
