import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  InvalidRequestError,
  ValidationError,
  type OperationId,
  type UpstreamClient,
} from '../../src/upstream/index.ts';
import { clientFor, startSimulator, type RunningSimulator } from './support/sim-fixture.ts';

/**
 * Issue 7, C9: the client refuses only what the interface document shows. A body that lacks a
 * field the document never shows, or shapes such a field otherwise than paysync would, is sent;
 * the simulator keeps paysync's stricter choices and answers 400 with the documented validation
 * body, which the client surfaces as a ValidationError.
 */

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11 });
});
afterAll(async () => {
  await sim.stop();
});
beforeEach(() => {
  sim.control.reset();
});

interface Case {
  name: string;
  operationId: OperationId;
  path?: Record<string, string | number>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
}

/** Bodies and queries that break only paysync's choices: they must reach the service. */
const paysyncChoices: Case[] = [
  {
    name: 'subscription link without customerReference',
    operationId: 'createSubscriptionLink',
    body: { description: 'card on file' },
  },
  {
    name: 'payment link without amount, currency or purchaseReference',
    operationId: 'createPaymentLink',
    body: { description: 'no amount yet' },
  },
  {
    name: 'delegated payment without purchaseReference and customerReference',
    operationId: 'createDelegatedPayment',
    body: { amount: 2500, currency: 'XOF', phoneNumber: '+221760001111' },
  },
  {
    name: 'delegated payment with a numeric phoneNumber',
    operationId: 'createDelegatedPayment',
    body: {
      amount: 2500,
      currency: 'XOF',
      purchaseReference: 'order-1',
      customerReference: 'cust-1',
      phoneNumber: 221760001111,
    },
  },
  {
    name: 'transfer refund without transactionId',
    operationId: 'createTransferRefund',
    body: { reason: 'customer asked' },
  },
  {
    name: 'transfer refund with a paymentMethod outside our reading',
    operationId: 'createTransferRefund',
    body: { transactionId: 'tr_1', paymentMethod: 'cash' },
  },
  { name: 'refund (MerchantId only) without transactionId', operationId: 'createRefund', body: {} },
  {
    name: 'payment refund with a numeric reason',
    operationId: 'createPaymentRefund',
    path: { id: 'pi_1' },
    body: { reason: 42 },
  },
  {
    name: 'webhook without url',
    operationId: 'createWebhook',
    body: { events: ['transfer.updated'] },
  },
  {
    name: 'webhook with a url that is not a URL',
    operationId: 'createWebhook',
    body: { url: 'not a url' },
  },
  {
    name: 'webhook update with events that are not a list',
    operationId: 'updateWebhook',
    path: { id: 'wh_1' },
    body: { events: 'transfer.updated' },
  },
  { name: 'transfer list page 0', operationId: 'listTransfers', query: { page: 0 } },
  {
    name: 'payment intent list perPage 2.5',
    operationId: 'listPaymentIntents',
    query: { perPage: 2.5 },
  },
];

/** Bodies and queries that break what the document shows: refused, nothing sent. */
const documentRules: (Case & { field: string })[] = [
  {
    name: 'delegated IRT transfer without reference',
    operationId: 'createDelegatedIrtTransfer',
    body: { srcAmount: 100 },
    field: 'reference',
  },
  {
    name: 'delegated IRT transfer with a three-letter srcCountry',
    operationId: 'createDelegatedIrtTransfer',
    body: { reference: 'irt-1', srcCountry: 'SEN' },
    field: 'srcCountry',
  },
  {
    name: 'delegated IRT transfer with a forexRate that is not decimal text',
    operationId: 'createDelegatedIrtTransfer',
    body: { reference: 'irt-1', forexRate: '1,5' },
    field: 'forexRate',
  },
  {
    name: 'submerchant without name',
    operationId: 'createSubmerchant',
    body: { city: 'Dakar' },
    field: 'name',
  },
  {
    name: 'kyb with a numeric taxNumber',
    operationId: 'putKyb',
    path: { name: 'acme' },
    body: { taxNumber: 123 },
    field: 'taxNumber',
  },
  {
    name: 'payment link with a fractional amount',
    operationId: 'createPaymentLink',
    body: { amount: 12.5, currency: 'XOF', purchaseReference: 'p-1' },
    field: 'amount',
  },
  {
    name: 'subscription link with a lower-case currency',
    operationId: 'createSubscriptionLink',
    body: { customerReference: 'c-1', currency: 'xof' },
    field: 'currency',
  },
  {
    name: 'delegated payment body that is not a JSON object',
    operationId: 'createDelegatedPayment',
    body: [{ amount: 2500 }],
    field: '(body)',
  },
  {
    name: 'payment refund with a negative amount',
    operationId: 'createPaymentRefund',
    path: { id: 'pi_1' },
    body: { amount: -1 },
    field: 'amount',
  },
  {
    name: 'transfer list page that is not a number',
    operationId: 'listTransfers',
    query: { page: 'first' },
    field: 'page',
  },
];

function fresh(): UpstreamClient {
  return clientFor(sim, { maxRetries: 0 });
}

describe("paysync's own choices are the simulator's to refuse, not the client's", () => {
  test.each(paysyncChoices)('$name: sent, answered 400 validation', async (input) => {
    const client = fresh();
    const error = await client.call(input.operationId, input).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).not.toContain('nothing sent');
    expect(error).toBeInstanceOf(ValidationError);
    const validation = error as ValidationError;
    expect(validation.status).toBe(400);
    expect(validation.bodyMatchesContract).toBe(true);
    expect(validation.body).toMatchObject({
      status: 400,
      error: { statusCode: 400, error: 'Bad Request', message: expect.any(Array) },
    });
    expect(validation.messages.length).toBeGreaterThan(0);
    expect(client.stats().requests).toBe(1);
  });
});

describe('what the document shows is still refused before sending', () => {
  test.each(documentRules)('$name: InvalidRequestError naming $field', async (input) => {
    const client = fresh();
    const error = await client.call(input.operationId, input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    const invalid = error as InvalidRequestError;
    expect(invalid.issues.map((issue) => issue.path)).toContain(input.field);
    expect(invalid.message).toContain(`${input.operationId}: invalid request, nothing sent`);
    expect(invalid.message).toContain(input.field);
    expect(client.stats().requests).toBe(0);
  });
});
