/**
 * Webhook bodies as real payment providers document them, trimmed to the fields that matter
 * for classification (ids, types, references, nesting) and with personal data made up. They
 * are independent of this service's simulator on purpose: paysync must read a foreign shape
 * sensibly, which often means admitting it is not about one of our resources.
 */

/** Stripe, "The Event object" (docs.stripe.com/api/events/object), `payment_intent.succeeded`. */
export const stripePaymentIntentSucceeded = {
  id: 'evt_3TWIvx0qWkNaM1fM0xC9LCxz',
  object: 'event',
  api_version: '2026-01-28.clover',
  created: 1778602408,
  data: {
    object: {
      id: 'pi_3TWIvx0qWkNaM1fM0H4e0MIb',
      object: 'payment_intent',
      amount: 200,
      amount_received: 200,
      currency: 'usd',
      customer: 'cus_UVJZMy16ECE8yo',
      latest_charge: 'py_3TWIvx0qWkNaM1fM0WWKHuKt',
      payment_method: 'pm_1TWIvv0qWkNaM1fMRDWm1lC1',
      status: 'succeeded',
    },
  },
  livemode: true,
  pending_webhooks: 1,
  request: { id: 'req_8mrIOjRUvcN7Kb', idempotency_key: null },
  type: 'payment_intent.succeeded',
};

/** Stripe, `payout.paid` with "The Payout object" (docs.stripe.com/api/payouts/object). */
export const stripePayoutPaid = {
  id: 'evt_1PoeAbGFzsjrzPXDq1wZ9yXw',
  object: 'event',
  api_version: '2024-06-20',
  created: 1723868300,
  data: {
    object: {
      id: 'po_1PoeAaGFzsjrzPXDzF8K2mQn',
      object: 'payout',
      amount: 1100,
      arrival_date: 1723939200,
      automatic: true,
      balance_transaction: 'txn_1PoeAaGFzsjrzPXDk0lY8b3M',
      currency: 'usd',
      destination: 'ba_1PoeAZGFzsjrzPXDwfv1uRxD',
      method: 'standard',
      source_type: 'card',
      statement_descriptor: null,
      status: 'paid',
      type: 'bank_account',
    },
  },
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type: 'payout.paid',
};

/** Stripe, `charge.refunded` with "The Charge object" (docs.stripe.com/api/charges/object). */
export const stripeChargeRefunded = {
  id: 'evt_3JQYvtAoreSdtfZ21GbZVqYk',
  object: 'event',
  api_version: '2020-08-27',
  created: 1629470664,
  data: {
    object: {
      id: 'ch_3JQYvtAoreSdtfZ21eB5m7Pj',
      object: 'charge',
      amount: 2000,
      amount_refunded: 2000,
      balance_transaction: 'txn_3JQYvtAoreSdtfZ21X0Qh3Hc',
      currency: 'usd',
      payment_intent: 'pi_3JQYvtAoreSdtfZ21Q335WYl',
      refunded: true,
      status: 'succeeded',
    },
  },
  livemode: false,
  type: 'charge.refunded',
};

/** Stripe, `checkout.session.completed` (docs.stripe.com/api/checkout/sessions/object). */
export const stripeCheckoutSessionCompleted = {
  id: 'evt_1Emw4mGf8y65MteUNt6J2zlN',
  object: 'event',
  api_version: '2019-05-16',
  created: 1560921076,
  data: {
    object: {
      id: 'cs_test_0FldEAQpyiya1xFLtZpPuEaWQ8OGnMMsotlnwrWCk8jXrAeeMtVruHwB',
      object: 'checkout.session',
      client_reference_id: 'ff3bbecb-e744-4674-b411-a11d6832a5ac',
      customer: 'cus_FHV47hm01bNBpG',
      payment_intent: 'pi_1Emw4WGf8y65MteUBrVOy4ME',
      payment_method_types: ['card'],
    },
  },
  livemode: false,
  type: 'checkout.session.completed',
};

/**
 * Adyen, standard notification webhook `REFUND` (docs.adyen.com/api-explorer/Webhooks/1/post/REFUND):
 * a `notificationItems` list, each item a `NotificationRequestItem` with `eventCode`.
 */
export const adyenRefund = {
  live: 'false',
  notificationItems: [
    {
      NotificationRequestItem: {
        additionalData: {},
        amount: { currency: 'EUR', value: 1000 },
        eventCode: 'REFUND',
        eventDate: '2021-07-17T13:42:40+01:00',
        merchantAccountCode: 'YOUR_MERCHANT_ACCOUNT',
        merchantReference: 'YOUR_REFUND_REFERENCE',
        originalReference: 'QFQTPCQ8HXSKGK82',
        paymentMethod: 'visa',
        pspReference: 'ZHX7KDSCPQRN7K93',
        reason: '',
        success: 'true',
      },
    },
  ],
};

/**
 * PayPal, webhook event `PAYMENT.CAPTURE.REFUNDED` (developer.paypal.com/api/rest/webhooks/
 * event-names/, "Payments V2"): `event_type`, `resource_type` and the refund under `resource`.
 */
export const paypalCaptureRefunded = {
  id: 'WH-1GE84257G0350133W-6RW800890C634293G',
  event_version: '1.0',
  create_time: '2018-08-15T19:14:04.543Z',
  resource_type: 'refund',
  resource_version: '2.0',
  event_type: 'PAYMENT.CAPTURE.REFUNDED',
  summary: 'A $ 0.99 USD capture payment was refunded',
  resource: {
    id: '1Y107995YT783435V',
    amount: { currency_code: 'USD', value: '0.99' },
    status: 'COMPLETED',
    create_time: '2018-08-15T12:13:29-07:00',
    update_time: '2018-08-15T12:13:29-07:00',
    links: [
      {
        href: 'https://api.paypal.com/v2/payments/refunds/1Y107995YT783435V',
        rel: 'self',
        method: 'GET',
      },
      {
        href: 'https://api.paypal.com/v2/payments/captures/0JF852973C016714D',
        rel: 'up',
        method: 'GET',
      },
    ],
  },
  links: [
    {
      href: 'https://api.paypal.com/v1/notifications/webhooks-events/WH-1GE84257G0350133W-6RW800890C634293G',
      rel: 'self',
      method: 'GET',
    },
  ],
};

/** PayPal, `PAYMENT.CAPTURE.COMPLETED` (same page): a capture, which names no payment intent of ours. */
export const paypalCaptureCompleted = {
  id: 'WH-58D329510W468432D-8HN650336L201105X',
  event_version: '1.0',
  create_time: '2019-02-14T21:50:07.940Z',
  resource_type: 'capture',
  resource_version: '2.0',
  event_type: 'PAYMENT.CAPTURE.COMPLETED',
  summary: 'Payment completed for $ 5.00 USD',
  resource: {
    id: '02335565G34798738',
    amount: { currency_code: 'USD', value: '5.00' },
    final_capture: true,
    status: 'COMPLETED',
    supplementary_data: { related_ids: { order_id: '1W5313654M9708630' } },
  },
};

/**
 * Paystack, "Webhooks" event samples (paystack.com/docs/payments/webhooks; source snippets in
 * github.com/PaystackOSS/doc-code-snippets, doc/payments/webhooks/events.js): numeric `data.id`.
 */
export const paystackChargeSuccess = {
  event: 'charge.success',
  data: {
    id: 302961,
    domain: 'live',
    status: 'success',
    reference: 'qTPrJoy9Bx',
    amount: 10000,
    gateway_response: 'Approved by Financial Institution',
    paid_at: '2016-09-30T21:10:19.000Z',
    channel: 'card',
    currency: 'NGN',
    customer: { id: 68324, email: 'customer@example.com', customer_code: 'CUS_qo38as2hpsgk2r0' },
    authorization: { authorization_code: 'AUTH_f5rnfq9p', last4: '8877' },
    plan: {},
  },
};

/** Paystack, `transfer.success` (same file): numeric `data.id`, `reference`, `transfer_code`. */
export const paystackTransferSuccess = {
  event: 'transfer.success',
  data: {
    amount: 30000,
    currency: 'NGN',
    domain: 'test',
    failures: null,
    id: 37272792,
    integration: { id: 463433, is_live: true, business_name: 'Boom Boom Industries NG' },
    reason: 'Have fun...',
    reference: '1jhbs3ozmen0k7y5efmw',
    source: 'balance',
    status: 'success',
    transfer_code: 'TRF_wpl1dem4967avzm',
    recipient: { id: 8690817, recipient_code: 'RCP_a8wkxiychzdzfgs', type: 'nuban' },
    created_at: '2020-10-26T12:28:57.000Z',
  },
};

/**
 * Paystack, `refund.processed` (paystack.com/docs/payments/refunds; doc-code-snippets
 * doc/payments/refunds/events.js): no refund id at all, only references.
 */
export const paystackRefundProcessed = {
  event: 'refund.processed',
  data: {
    status: 'processed',
    transaction_reference: 'T2154954_412829_3be32076_6lcg3',
    refund_reference: '132013318360',
    amount: '5000',
    currency: 'NGN',
    processor: 'mpgs_zen',
    customer: { first_name: 'Ada', last_name: 'Example', email: 'ada@example.com' },
    integration: 412829,
    domain: 'live',
  },
};

/**
 * Flutterwave v3, "Webhooks" payload samples (developer.flutterwave.com/docs/webhooks):
 * `event`, a numeric `data.id`, and a second, dotted `event.type` key.
 */
export const flutterwaveChargeCompleted = {
  event: 'charge.completed',
  data: {
    id: 285959875,
    tx_ref: 'Links-616626414629',
    flw_ref: 'PeterEkene/FLW270177170',
    amount: 100,
    currency: 'NGN',
    charged_amount: 100,
    status: 'successful',
    payment_type: 'card',
    created_at: '2020-07-06T19:17:04.000Z',
    account_id: 17321,
    customer: { id: 215604089, name: 'Yemi Desola', email: 'user@example.com' },
  },
  'event.type': 'CARD_TRANSACTION',
};

/** Flutterwave v3, `transfer.completed` (same page): numeric `data.id` and a `reference`. */
export const flutterwaveTransferCompleted = {
  event: 'transfer.completed',
  'event.type': 'Transfer',
  data: {
    id: 33286,
    account_number: '0690000040',
    bank_name: 'ACCESS BANK NIGERIA',
    bank_code: '044',
    fullname: 'Bale Gary',
    created_at: '2020-04-14T16:39:17.000Z',
    currency: 'NGN',
    debit_currency: 'NGN',
    amount: 30020,
    fee: 26.875,
    status: 'SUCCESSFUL',
    reference: 'a0a827b1eca65311_PMCKDU_5',
    meta: null,
    narration: 'lolololo',
    complete_message: 'Successful',
    requires_approval: 0,
    is_approved: 1,
  },
};

/**
 * CinetPay, "Prepare a notification page" (docs.cinetpay.com/api/1.0-en/checkout/notification):
 * the notification is an HTML form POST, not JSON; the merchant must call /v2/payment/check.
 */
export const cinetpayNotificationForm =
  'cpm_site_id=105890&cpm_trans_id=ORDER-2024-0042&cpm_trans_date=2024-05-02+10%3A12%3A09' +
  '&cpm_amount=100&cpm_currency=XOF&signature=3a1b0f&payment_method=OM&cel_phone_num=0700000000' +
  '&cpm_phone_prefixe=225&cpm_language=fr&cpm_version=V4&cpm_payment_config=Single' +
  '&cpm_page_action=Payment&cpm_custom=&cpm_designation=&cpm_error_message=SUCCES';

/**
 * pawaPay (a mobile-money aggregator), "Refund callback"
 * (docs.pawapay.io/v1/api-reference/refunds/refund-callback): no event type, and a `refundId`
 * that is a UUID chosen by the merchant, not a number.
 */
export const pawapayRefundCallback = {
  refundId: 'f4401bd2-1568-4140-bf2d-eb77d2b2b639',
  status: 'COMPLETED',
  amount: '15',
  currency: 'ZMW',
  country: 'ZMB',
  correspondent: 'MTN_MOMO_ZMB',
  recipient: { type: 'MSISDN', address: { value: '260700000000' } },
  customerTimestamp: '2020-02-21T17:32:28Z',
  created: '2020-02-21T17:32:29Z',
  receivedByRecipient: '2020-02-21T17:32:30Z',
  correspondentIds: { MTN_INIT: 'ABC123', MTN_FINAL: 'DEF456' },
};

/** pawaPay, "Deposit callback" (docs.pawapay.io/v1/api-reference/deposits/deposit-callback). */
export const pawapayDepositCallback = {
  depositId: '8917c345-4791-4285-a416-62f24b6982db',
  status: 'COMPLETED',
  requestedAmount: '123.00',
  depositedAmount: '123.00',
  currency: 'ZMW',
  country: 'ZMB',
  payer: { type: 'MSISDN', address: { value: '260700000000' } },
  correspondent: 'MTN_MOMO_ZMB',
  customerTimestamp: '2020-02-21T17:32:28Z',
  statementDescription: 'Note of 4 to 22 chars',
  created: '2020-02-21T17:32:29Z',
  respondedByPayer: '2020-02-21T17:32:30Z',
  correspondentIds: { MTN_INIT: 'ABC123', MTN_FINAL: 'DEF456' },
};

/** Checkout.com, `payment_refunded` (checkout.com/docs/workflows/webhook-event-types/payment_refunded). */
export const checkoutComPaymentRefunded = {
  id: 'evt_sojezy57bieu5hbxrmem74jx54',
  type: 'payment_refunded',
  version: '1.0.29',
  created_on: '2023-05-24T09:28:33.7515599Z',
  data: {
    id: 'pay_234iojjumr4ejphuvcsnpnugs4',
    action_id: 'act_v3ap4uxinl6exk5hdgetatbywi',
    reference: 'ORD-5023-4E89',
    amount: 40000,
    currency: 'EUR',
    processed_on: '2023-05-24T09:28:29.3682789Z',
  },
  _links: {
    subject: {
      href: 'https://api.checkout.com/workflows/events/subject/pay_234iojjumr4ejphuvcsnpnugs4',
    },
  },
};

/** Razorpay, `refund.created` (razorpay.com/docs/webhooks/refunds): `payload.refund.entity`. */
export const razorpayRefundCreated = {
  entity: 'event',
  account_id: 'acc_E7OQJcEANmBHTC',
  event: 'refund.created',
  contains: ['refund', 'payment'],
  payload: {
    refund: {
      entity: {
        id: 'rfnd_FS8TWyPrCsa0OB',
        entity: 'refund',
        amount: 50000,
        currency: 'INR',
        payment_id: 'pay_FPoJKWQQ8lK13n',
        status: 'processed',
      },
    },
    payment: { entity: { id: 'pay_FPoJKWQQ8lK13n', entity: 'payment', status: 'captured' } },
  },
  created_at: 1597734071,
};

/**
 * CloudEvents 1.0, the structured-mode example of the JSON format spec
 * (github.com/cloudevents/spec, cloudevents/formats/json-format.md): `subject` is "123" for a
 * GitHub pull request, which is no refund of ours.
 */
export const cloudEventsSpecExample = {
  specversion: '1.0',
  type: 'com.github.pull_request.opened',
  source: 'https://github.com/cloudevents/spec/pull',
  subject: '123',
  id: 'A234-1234-1234',
  time: '2018-04-05T17:31:00Z',
  comexampleextension1: 'value',
  comexampleothervalue: 5,
  datacontenttype: 'text/xml',
  data: '<much wow="xml"/>',
};
