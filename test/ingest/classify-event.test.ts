import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { classifyEvent, kindOfEventType } from '../../src/ingest/classify-event.ts';

const PI = 'pi_A1b2C3d4E5f6G7h8I9j0K1l2';
const TR = 'tr_Z9y8X7w6V5u4T3s2R1q0P9o8';
const PL = 'pl_M1n2B3v4C5x6Z7l8K9j0H1g2';

/** The simulator's own shape, then shapes other senders plausibly use. */
const recognised = [
  [
    'simulator transfer event',
    {
      id: 'evt_1',
      type: 'transfer.updated',
      createdAt: '2030-01-01T00:00:00.000Z',
      mode: 'sandbox',
      data: {
        object: { id: TR, reference: 'payout-7', status: 'failed' },
        previousStatus: 'pending',
      },
    },
    { kind: 'transfer', id: TR, reference: 'payout-7' },
  ],
  [
    'simulator payment intent event',
    {
      id: 'evt_2',
      type: 'payment_intent.created',
      data: { object: { id: PI, purchaseReference: 'order-9' } },
    },
    { kind: 'payment_intent', id: PI, reference: 'order-9' },
  ],
  [
    'simulator refund event (numeric id, points at a transfer)',
    {
      id: 'evt_3',
      type: 'refund.updated',
      data: { object: { id: 1001, transactionId: TR, status: 'pending' } },
    },
    { kind: 'refund', id: '1001' },
  ],
  [
    'simulator payment refund event',
    {
      id: 'evt_4',
      type: 'payment_refund.updated',
      data: { object: { id: 1002, paymentIntentId: PI } },
    },
    { kind: 'payment_refund', id: '1002' },
  ],
  [
    'simulator payment link event',
    {
      id: 'evt_5',
      type: 'payment_link.updated',
      data: { object: { id: PL, purchaseReference: 'link-1' } },
    },
    { kind: 'payment_link', id: PL, reference: 'link-1' },
  ],
  [
    'resource under data',
    { type: 'transfer.succeeded', data: { id: TR } },
    { kind: 'transfer', id: TR },
  ],
  [
    'resource under resource',
    { event: 'transfer.failed', resource: { id: TR } },
    { kind: 'transfer', id: TR },
  ],
  [
    'bare resource at top level',
    { id: PI, status: 'successful', amount: 100 },
    { kind: 'payment_intent', id: PI },
  ],
  [
    'type in "name"',
    { name: 'payout.completed', payload: { id: TR } },
    { kind: 'transfer', id: TR },
  ],
  [
    'type in "event" with a camelCase kind',
    { event: 'paymentIntent.succeeded', data: { paymentIntentId: PI } },
    { kind: 'payment_intent', id: PI },
  ],
  [
    'id under a kind-named key',
    { type: 'transfer.updated', transferId: TR },
    { kind: 'transfer', id: TR },
  ],
  [
    'snake_case kind key',
    { event_type: 'transfer.updated', data: { transfer_id: TR } },
    { kind: 'transfer', id: TR },
  ],
  [
    'nested object under a kind key',
    { type: 'payment.succeeded', data: { payment_intent: { id: PI } } },
    { kind: 'payment_intent', id: PI },
  ],
  [
    'resource_id beside an event id',
    { id: 'evt_9', type: 'transfer.updated', resource_id: TR },
    { kind: 'transfer', id: TR },
  ],
  [
    'unknown type, id by prefix',
    { type: 'something.happened', data: { object: { id: TR } } },
    { kind: 'transfer', id: TR },
  ],
  [
    'no type at all, id by prefix',
    { data: { object: { id: PL } } },
    { kind: 'payment_link', id: PL },
  ],
  [
    'refund id as a quoted number',
    { type: 'refund.updated', data: { refundId: '1003' } },
    { kind: 'refund', id: '1003' },
  ],
  [
    'refund without a type, told by its transfer id',
    { data: { object: { id: 1004, transactionId: TR } } },
    { kind: 'refund', id: '1004' },
  ],
  [
    'payment refund without a type, told by its intent id',
    { data: { object: { id: 1005, paymentIntentId: PI } } },
    { kind: 'payment_refund', id: '1005' },
  ],
  [
    'payment refund type spelled with a dash',
    { type: 'payments-refund.status', data: { id: 1006 } },
    { kind: 'payment_refund', id: '1006' },
  ],
  [
    'transfer known only by reference',
    { type: 'transfer.updated', data: { reference: 'payout-8' } },
    { kind: 'transfer', reference: 'payout-8' },
  ],
  [
    'intent known only by purchase reference',
    { type: 'payment_intent.updated', data: { purchaseReference: 'order-1' } },
    { kind: 'payment_intent', reference: 'order-1' },
  ],
  [
    'ids trusted over a contradicting type',
    { type: 'transfer.updated', data: { object: { id: PI } } },
    { kind: 'payment_intent', id: PI },
  ],
  [
    'subscription link type',
    { type: 'subscription_link.completed', data: { id: PL } },
    { kind: 'payment_link', id: PL },
  ],
  // 7.B4: CloudEvents name the resource in `subject`, and sometimes in `source`.
  [
    'CloudEvents subject with a transfer path',
    {
      specversion: '1.0',
      id: 'ce-1',
      source: '/merchants/m-1',
      type: 'com.example.transfer.updated',
      subject: `transfers/${TR}`,
    },
    { kind: 'transfer', id: TR },
  ],
  [
    'CloudEvents subject with a payment intent path, type naming no kind',
    {
      specversion: '1.0',
      id: 'ce-2',
      source: '/merchants/m-1',
      type: 'com.example.object.changed',
      subject: `payment-intents/${PI}`,
    },
    { kind: 'payment_intent', id: PI },
  ],
  [
    'CloudEvents subject with a refund path (numeric id)',
    {
      specversion: '1.0',
      id: 'ce-3',
      source: '/m',
      type: 'com.example.changed',
      subject: 'refunds/123',
    },
    { kind: 'refund', id: '123' },
  ],
  [
    'CloudEvents subject with a payment link path',
    {
      specversion: '1.0',
      id: 'ce-4',
      source: '/m',
      type: 'com.example.changed',
      subject: `payment-links/${PL}`,
    },
    { kind: 'payment_link', id: PL },
  ],
  [
    'CloudEvents subject holding a bare id',
    { specversion: '1.0', id: 'ce-5', source: '/m', type: 'com.example.changed', subject: TR },
    { kind: 'transfer', id: TR },
  ],
  [
    'CloudEvents subject holding a bare number under a refund type',
    {
      specversion: '1.0',
      id: '77',
      source: '/m',
      type: 'com.example.refund.updated',
      subject: '1006',
    },
    { kind: 'refund', id: '1006' },
  ],
  [
    'CloudEvents subject: a refund listed under a payment intent is a payment refund',
    {
      specversion: '1.0',
      id: 'ce-6',
      source: '/m',
      type: 'com.example.changed',
      subject: `payment-intents/${PI}/refunds/45`,
    },
    { kind: 'payment_refund', id: '45' },
  ],
  [
    'CloudEvents source carrying the id as a URL',
    {
      specversion: '1.0',
      id: 'ce-7',
      type: 'com.example.changed',
      source: `https://api.example.com/v1/transfers/${TR}?expand=all`,
    },
    { kind: 'transfer', id: TR },
  ],
  [
    'CloudEvents subject beats a numeric event id under a refund type',
    {
      specversion: '1.0',
      id: 55555,
      source: '/m',
      type: 'refund.completed',
      subject: 'refunds/1006',
    },
    { kind: 'refund', id: '1006' },
  ],
  // 7.B5: `resourceType` counts for every kind, numeric ids included.
  [
    'resourceType refund with a quoted numeric id',
    { resourceId: '1005', resourceType: 'refund' },
    { kind: 'refund', id: '1005' },
  ],
  [
    'resourceType payment_refund with a numeric id',
    { resource_id: 1007, resource_type: 'payment_refund' },
    { kind: 'payment_refund', id: '1007' },
  ],
  [
    'resourceType on the data object, beside an event id and a type naming no kind',
    { id: 'evt_1', type: 'resource.changed', data: { resourceType: 'refund', id: 1008 } },
    { kind: 'refund', id: '1008' },
  ],
  [
    'resourceType transfer known by reference',
    { resourceType: 'transfer', reference: 'payout-9' },
    { kind: 'transfer', reference: 'payout-9' },
  ],
  [
    'resourceType with a prefixed id',
    { resourceId: TR, resourceType: 'transfer' },
    { kind: 'transfer', id: TR },
  ],
  // 7.B6: which id is the refund's.
  [
    'refundId beats the numeric top-level event id',
    { id: 55555, event: 'refund.completed', refundId: 1006, transferId: TR },
    { kind: 'refund', id: '1006' },
  ],
  [
    'refund_id beats the numeric top-level event id',
    { id: '55555', type: 'refund.updated', refund_id: '1006' },
    { kind: 'refund', id: '1006' },
  ],
  [
    'paymentRefundId under a refund type names a payment refund',
    { id: 55555, event: 'refund.completed', paymentRefundId: 1009, paymentIntentId: PI },
    { kind: 'payment_refund', id: '1009' },
  ],
  [
    'refundId under a payment refund type is the payment refund',
    { id: 55555, type: 'payment_refund.updated', refundId: 1010 },
    { kind: 'payment_refund', id: '1010' },
  ],
  [
    'data.id beats the numeric top-level event id',
    { id: 55555, type: 'refund.updated', data: { id: 1011, transactionId: TR } },
    { kind: 'refund', id: '1011' },
  ],
  [
    'resourceId beats the bare id at the top level',
    { id: 55555, type: 'refund.updated', resourceId: 1012 },
    { kind: 'refund', id: '1012' },
  ],
  [
    'a refund object under a refund key',
    { type: 'refund.updated', data: { refund: { id: 1013, status: 'successful' } } },
    { kind: 'refund', id: '1013' },
  ],
  [
    'a flat refund: the top-level id is the only id',
    { id: 1014, type: 'refund.updated', transactionId: TR },
    { kind: 'refund', id: '1014' },
  ],
] as const;

describe('classifyEvent: recognised shapes', () => {
  test.each(recognised)('%s', (_label, body, expected) => {
    const result = classifyEvent(Buffer.from(JSON.stringify(body)));
    expect(result.outcome).toBe('resource');
    if (result.outcome !== 'resource') return;
    expect({ kind: result.kind, id: result.id, reference: result.reference }).toEqual({
      id: undefined,
      reference: undefined,
      ...expected,
    });
  });
});

const ignored = [
  [
    'submerchant event',
    { type: 'submerchant.updated', data: { object: { id: 'b0c1…', name: 'Shop' } } },
    'submerchant',
  ],
  ['KYB event', { type: 'kyb.updated', data: { object: { name: 'Shop' } } }, 'kyb'],
] as const;

describe('classifyEvent: resources paysync keeps no books for', () => {
  test.each(ignored)('%s', (_label, body, subject) => {
    expect(classifyEvent(JSON.stringify(body))).toMatchObject({ outcome: 'ignored', subject });
  });
});

const rejected: ReadonlyArray<readonly [string, string | Buffer, RegExp]> = [
  ['not JSON', '{"id": "evt_1",', /not JSON/],
  ['a JSON string', '"transfer.updated"', /not a JSON object/],
  ['a JSON number', '42', /not a JSON object/],
  [
    'a batch of events',
    JSON.stringify([{ type: 'transfer.updated', data: { id: TR } }]),
    /list of 1/,
  ],
  ['an empty object', '{}', /no event type and no resource id/],
  ['a ping', JSON.stringify({ type: 'ping' }), /unknown event type "ping"/],
  [
    'a transfer type with no id nor reference',
    JSON.stringify({ type: 'transfer.updated', data: { status: 'failed' } }),
    /names a transfer/,
  ],
  [
    'a refund type with only the transfer id',
    JSON.stringify({ type: 'refund.updated', data: { transactionId: TR } }),
    /names a refund/,
  ],
  [
    'a bare number id with no type nor shape',
    JSON.stringify({ data: { object: { id: 1001 } } }),
    /no event type/,
  ],
  [
    'an id that is only a prefix',
    JSON.stringify({ data: { object: { id: 'tr_' } } }),
    /no event type/,
  ],
  [
    'an event id only',
    JSON.stringify({ id: 'evt_1', createdAt: '2030-01-01T00:00:00.000Z' }),
    /no event type/,
  ],
  [
    'a reference with no type to say what it refers to',
    JSON.stringify({ data: { reference: 'payout-8' } }),
    /no event type/,
  ],
  [
    'a negative refund id',
    JSON.stringify({ type: 'refund.updated', data: { id: -5 } }),
    /names a refund/,
  ],
  [
    'a fractional refund id',
    JSON.stringify({ type: 'refund.updated', data: { id: 10.5 } }),
    /names a refund/,
  ],
  [
    'a payment refund claiming both a transfer and an intent',
    JSON.stringify({ data: { id: 7, transactionId: TR, paymentIntentId: PI } }),
    /no event type/,
  ],
  ['an empty buffer', Buffer.alloc(0), /not JSON/],
  [
    'a refund type whose only number is inside a transfer object',
    JSON.stringify({ type: 'refund.updated', data: { transfer: { id: 5, reference: 'p' } } }),
    /names a refund/,
  ],
  [
    'a refund type that only points at a transfer by a kind key',
    JSON.stringify({ type: 'refund.updated', data: { transferId: TR } }),
    /names a refund/,
  ],
  [
    'resourceType transfer with a number, which is no transfer id',
    JSON.stringify({ resourceId: '1005', resourceType: 'transfer' }),
    /resource type names a transfer/,
  ],
  [
    'CloudEvents source naming only the producer',
    JSON.stringify({
      specversion: '1.0',
      id: 'ce-9',
      source: '/merchants/42',
      type: 'com.example.ping',
    }),
    /unknown event type/,
  ],
];

describe('classifyEvent: rejected', () => {
  test.each(rejected)('%s', (_label, body, reason) => {
    const result = classifyEvent(typeof body === 'string' ? Buffer.from(body) : body);
    expect(result.outcome).toBe('unclassified');
    if (result.outcome === 'unclassified') expect(result.reason).toMatch(reason);
  });
});

describe('kindOfEventType', () => {
  test.each([
    ['transfer.updated', 'transfer'],
    ['payout.paid', 'transfer'],
    ['payment_intent.created', 'payment_intent'],
    ['PaymentIntentSucceeded', 'payment_intent'],
    ['payment.failed', 'payment_intent'],
    ['refund.created', 'refund'],
    ['payment_refund.updated', 'payment_refund'],
    ['paymentRefund.updated', 'payment_refund'],
    ['payment_link.expired', 'payment_link'],
    ['link.closed', 'payment_link'],
    ['submerchant.updated', 'submerchant'],
    ['kyb.deleted', 'kyb'],
    ['invoice.paid', undefined],
  ])('%s → %s', (type, kind) => {
    expect(kindOfEventType(type)).toBe(kind);
  });
});

describe('classifyEvent on arbitrary input', () => {
  test('never throws, and a resource always has an id or a reference', () => {
    const subjectLike = fc.oneof(
      fc.string(),
      fc.constantFrom('refunds/', 'transfers/', 'https://x/payment-intents/', 'urn:a:'),
    );
    const bodies = fc.oneof(
      fc.jsonValue(),
      fc.record({
        id: fc.oneof(fc.integer(), fc.string()),
        type: fc.string(),
        subject: fc
          .tuple(subjectLike, fc.oneof(fc.nat().map(String), fc.string()))
          .map(([a, b]) => a + b),
        resourceType: fc.constantFrom('refund', 'payment_refund', 'transfer', 'x'),
        resourceId: fc.oneof(fc.nat(), fc.string()),
        data: fc.jsonValue(),
      }),
    );
    fc.assert(
      fc.property(bodies, (body) => {
        const result = classifyEvent(Buffer.from(JSON.stringify(body) ?? 'null'));
        if (result.outcome === 'resource') {
          expect(result.id ?? result.reference).toBeTruthy();
        }
      }),
      { seed: 7_2026, numRuns: 500 },
    );
  });
});
