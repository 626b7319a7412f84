import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NO_BODY,
  operationIds,
  operations,
  type OperationId,
} from '../../src/upstream/contract/index.ts';
import { irtBody, startTestSim, type TestSim } from './support/sim-fetch.ts';

/** Ids made in `beforeAll`, used to fill path parameters. */
interface Fixtures {
  webhookId: string;
  transferId: string;
  otherTransferId: string;
  paymentIntentId: string;
  refundId: number;
  paymentRefundId: number;
  paymentLinkId: string;
  closableLinkId: string;
}

type Call = { path: string; body?: unknown; headers?: 'merchantId' | 'none' };

const calls = (f: Fixtures): Record<OperationId, Call> => ({
  listCountries: { path: '/data/countries?method=mobile_money', headers: 'none' },
  listProviders: { path: '/data/providers?country=SN&names=wave,orange_money', headers: 'none' },
  getBankCodes: { path: '/data/bank-codes', headers: 'none' },
  createWebhook: { path: '/webhooks', body: { url: 'http://127.0.0.1:9/hook' } },
  listWebhooks: { path: '/webhooks' },
  getWebhook: { path: `/webhooks/${f.webhookId}` },
  updateWebhook: { path: `/webhooks/${f.webhookId}`, body: { description: 'edited' } },
  deleteWebhook: { path: `/webhooks/${f.webhookId}` },
  createTransferRefund: { path: '/refunds/refund', body: { transactionId: f.transferId } },
  createRefund: {
    path: '/refunds',
    body: { transactionId: f.otherTransferId },
    headers: 'merchantId',
  },
  listRefunds: { path: '/refunds', headers: 'merchantId' },
  getRefund: { path: `/refunds/${f.refundId}`, headers: 'merchantId' },
  createPaymentRefund: {
    path: `/payments-refund/${f.paymentIntentId}/refund`,
    body: { amount: 100 },
  },
  getPaymentRefundStatus: { path: `/payments-refund/${f.paymentRefundId}/status` },
  getBalance: { path: '/balance?accountType=collection,transfer&currency=XOF' },
  createPaymentLink: {
    path: '/payment-links',
    body: { amount: 1_000, currency: 'XOF', purchaseReference: 'ops-link' },
  },
  listPaymentLinks: { path: '/payment-links?status=active' },
  getPaymentLink: { path: `/payment-links/${f.paymentLinkId}` },
  closePaymentLink: { path: `/payment-links/${f.closableLinkId}/close`, headers: 'none' },
  createSubscriptionLink: { path: '/subscription-links', body: { customerReference: 'cust-1' } },
  createDelegatedPayment: {
    path: '/delegated/payments',
    body: {
      amount: 900,
      currency: 'XOF',
      purchaseReference: 'ops-pay',
      customerReference: 'cust-1',
    },
  },
  getPaymentIntent: { path: `/terminal/payments/${f.paymentIntentId}` },
  listPaymentIntents: { path: '/payment-intents?page=1&perPage=5' },
  listTransfers: { path: '/transfers?isDelegated=true' },
  createDelegatedIrtTransfer: {
    path: '/delegated/transfers/irt',
    body: irtBody('+221770001234', 'ops-irt'),
  },
  createSubmerchant: { path: '/submerchants', body: { name: 'Ops shop' } },
  putKyb: { path: '/compliance/kyb/Ops%20Shop', body: { businessType: 'retail', country: 'SN' } },
  getKyb: { path: '/compliance/kyb/Ops%20Shop' },
  deleteKybTransaction: { path: '/compliance/transaction/ops-kyb-transfer' },
  getReceiptHtml: { path: `/receipts/html/${f.transferId}`, headers: 'none' },
});

describe('every operation of the contract', () => {
  let test: TestSim;
  let fixtures: Fixtures;

  beforeAll(async () => {
    test = await startTestSim();
    const { control } = test.sim;
    const webhook = await test.call('POST', '/webhooks', {
      body: { url: 'http://127.0.0.1:9/other' },
    });
    const transfer = control.createTransfer({
      amount: 5_000,
      destination: { number: '+221770001234' },
    });
    const otherTransfer = control.createTransfer({
      amount: 6_000,
      destination: { number: '+221770001234' },
    });
    control.createTransfer({
      amount: 5_000,
      reference: 'ops-kyb-transfer',
      aggregatedMerchantId: 'agg-1',
      destination: { number: '+221770001234' },
    });
    const intent = control.createPaymentIntent({ amount: 5_000 });
    control.advance(10_000);
    const refund = await test.call('POST', '/refunds/refund', {
      body: {
        transactionId: control.createTransfer({
          amount: 10,
          destination: { number: '+221770001234' },
        }).id,
      },
    });
    expect(refund.status).toBe(409); // not yet successful
    const refundable = control.createTransfer({
      amount: 10,
      destination: { number: '+221770001234' },
    });
    control.settle(refundable.id, 'successful');
    const realRefund = await test.call('POST', '/refunds/refund', {
      body: { transactionId: refundable.id },
    });
    const paymentRefund = await test.call('POST', `/payments-refund/${intent.id}/refund`, {
      body: { amount: 50 },
    });
    const link = await test.call('POST', '/payment-links', {
      body: { amount: 10, currency: 'XOF', purchaseReference: 'fixture-link' },
    });
    const closable = await test.call('POST', '/payment-links', {
      body: { amount: 10, currency: 'XOF', purchaseReference: 'closable' },
    });
    fixtures = {
      webhookId: (webhook.body as { id: string }).id,
      transferId: transfer.id,
      otherTransferId: otherTransfer.id,
      paymentIntentId: intent.id,
      refundId: (realRefund.body as { id: number }).id,
      paymentRefundId: (paymentRefund.body as { id: number }).id,
      paymentLinkId: (link.body as { id: string }).id,
      closableLinkId: (closable.body as { id: string }).id,
    };
  });
  afterAll(async () => test.sim.stop());

  it('covers the 30 operations', () => {
    expect(operationIds).toHaveLength(30);
  });

  // deleteWebhook goes last among the webhook calls because it removes the fixture.
  const order = [...operationIds].sort(
    (a, b) => Number(a === 'deleteWebhook') - Number(b === 'deleteWebhook'),
  );
  it.each(order)('%s answers its success status with a body the contract accepts', async (id) => {
    const operation = operations[id];
    const call = calls(fixtures)[id];
    const headers =
      call.headers === 'none'
        ? {}
        : call.headers === 'merchantId'
          ? { MerchantId: 'mch_test' }
          : test.credentialHeaders();
    const response = await test.call(operation.method, call.path, { body: call.body, headers });
    expect(response.status, JSON.stringify(response.body)).toBe(operation.successStatus);
    if (operation.response === NO_BODY) {
      expect(response.body).toBeUndefined();
    } else {
      const parsed = operation.response.safeParse(response.body);
      expect(parsed.success, parsed.error?.message).toBe(true);
    }
  });
});
