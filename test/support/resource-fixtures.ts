import {
  paymentIntent as paymentIntentSchema,
  refund as refundSchema,
  transfer as transferSchema,
  type PaymentIntent,
  type Refund,
  type Transfer,
} from '../../src/upstream/index.ts';

/** The service's updatedAt `n` seconds into the test day, UTC with milliseconds. */
export function at(seconds: number): string {
  return new Date(Date.UTC(2026, 2, 1, 10, 0, seconds)).toISOString();
}

// Every fixture goes through the contract schema, so a test cannot use a shape the job
// could never hand over.
export function paymentIntentFixture(overrides: Partial<PaymentIntent> = {}): PaymentIntent {
  return paymentIntentSchema.parse({
    id: 'pi_1',
    merchantId: 'mch_1',
    createdAt: at(0),
    updatedAt: at(1),
    token: 'eyJ.payload.sig',
    purchaseReference: 'order-1',
    customerReference: 'cust-1',
    status: 'processing',
    amount: 5000,
    currency: 'XOF',
    payments: [],
    mode: 'sandbox',
    ...overrides,
  });
}

export function transferFixture(overrides: Partial<Transfer> = {}): Transfer {
  return transferSchema.parse({
    id: 'tr_1',
    merchantId: 'mch_1',
    createdAt: at(0),
    updatedAt: at(1),
    reference: 'payout-1',
    description: 'payout',
    status: 'pending',
    amount: 10000,
    currency: 'XOF',
    mode: 'sandbox',
    destination: { type: 'mobile_money', country: 'SN', number: '221770000000', provider: 'wave' },
    fees: [{ id: 'fee_1', rate: 1, amount: 100, currency: 'XOF', taxes: [], label: 'fee' }],
    isIrt: false,
    providerReference: 'prov-1',
    gatewayId: 'gw-1',
    isDelegated: false,
    aggregatedMerchantId: 'agg-1',
    ...overrides,
  });
}

export function refundFixture(overrides: Partial<Refund> = {}): Refund {
  return refundSchema.parse({
    id: 41,
    status: 'pending',
    transactionId: 'tr_1',
    amount: 10000,
    currency: 'XOF',
    reason: 'wrong recipient',
    paymentMethod: 'mobile_money',
    fallbackAllowed: false,
    fallbackUsed: false,
    metadata: {},
    supportTicketId: 'TCK-41',
    createdAt: at(0),
    updatedAt: at(1),
    ...overrides,
  });
}
