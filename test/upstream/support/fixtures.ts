import type { PaymentIntent, Transfer } from '../../../src/upstream/index.ts';

export function paymentIntentFixture(overrides: Partial<PaymentIntent> = {}): PaymentIntent {
  return {
    id: 'pi_abc123',
    merchantId: 'mch_1',
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-01T10:05:00.000Z',
    token: 'eyJ.payload.sig',
    purchaseReference: 'order-1',
    customerReference: 'cust-1',
    status: 'successful',
    amount: 5000,
    currency: 'XOF',
    payments: [],
    mode: 'sandbox',
    ...overrides,
  };
}

export function transferFixture(overrides: Partial<Transfer> = {}): Transfer {
  return {
    id: 'tr_abc123',
    merchantId: 'mch_1',
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-01T10:05:00.000Z',
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
  };
}
