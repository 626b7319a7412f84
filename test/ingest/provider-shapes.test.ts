import { describe, expect, test } from 'vitest';
import { classifyEvent, type EventClassification } from '../../src/ingest/classify-event.ts';
import * as shapes from './support/provider-webhooks.ts';

type Expected =
  | { readonly kind: string; readonly id?: string; readonly reference?: string }
  | { readonly unclassified: RegExp };

/**
 * What paysync makes of other providers' documented webhooks (sources in
 * support/provider-webhooks.ts). Most of these are about nothing paysync keeps books for, and
 * the right answer is then `unclassified` with a reason, never a fetch of a wrong id.
 */
const table: ReadonlyArray<readonly [string, unknown, Expected, string]> = [
  [
    'Stripe payment_intent.succeeded',
    shapes.stripePaymentIntentSucceeded,
    { kind: 'payment_intent', id: 'pi_3TWIvx0qWkNaM1fM0H4e0MIb' },
    // Stripe intent ids look exactly like ours; the sync asks the service, which answers 404
    // for a foreign one, and that becomes an `unknown_upstream_resource` discrepancy.
    'the id under data.object has our prefix',
  ],
  [
    'Stripe payout.paid',
    shapes.stripePayoutPaid,
    { unclassified: /"payout\.paid" names a transfer but the body gives no usable id/ },
    'po_… is not a transfer id of ours, and a payout has no reference',
  ],
  [
    'Stripe charge.refunded',
    shapes.stripeChargeRefunded,
    { unclassified: /"charge\.refunded" names a refund but the body gives no usable id/ },
    'the charge only points at its intent; that pointer is not the refund',
  ],
  [
    'Stripe checkout.session.completed',
    shapes.stripeCheckoutSessionCompleted,
    { kind: 'payment_intent', id: 'pi_1Emw4WGf8y65MteUBrVOy4ME' },
    'an event type of no kind whose object points at an intent: look at the intent again',
  ],
  [
    'Adyen REFUND notification',
    shapes.adyenRefund,
    { unclassified: /no event type and no resource id/ },
    'eventCode sits inside a list of notification items, and pspReferences are not our ids',
  ],
  [
    'PayPal PAYMENT.CAPTURE.REFUNDED',
    shapes.paypalCaptureRefunded,
    { unclassified: /names a refund but the body gives no usable id/ },
    'resource_type says refund, but 1Y107995YT783435V is no numeric refund id',
  ],
  [
    'PayPal PAYMENT.CAPTURE.COMPLETED',
    shapes.paypalCaptureCompleted,
    { unclassified: /names a payment intent but the body gives no usable id/ },
    'a capture id is not a pi_… id',
  ],
  [
    'Paystack charge.success',
    shapes.paystackChargeSuccess,
    { unclassified: /"charge\.success" names a payment intent but the body gives no usable id/ },
    'the numeric data.id is no intent id, and `reference` is not a purchaseReference',
  ],
  [
    'Paystack transfer.success',
    shapes.paystackTransferSuccess,
    { kind: 'transfer', reference: '1jhbs3ozmen0k7y5efmw' },
    // A transfer's reference is the merchant's own handle, and the service looks transfers up
    // by reference; an unknown one ends as `unknown_upstream_resource`. The numeric id is ignored.
    'the numeric data.id is never taken; the reference is',
  ],
  [
    'Paystack refund.processed',
    shapes.paystackRefundProcessed,
    { unclassified: /"refund\.processed" names a refund but the body gives no usable id/ },
    'refund_reference is a reference, not a refund id; no bare number stands in for one',
  ],
  [
    'Flutterwave charge.completed',
    shapes.flutterwaveChargeCompleted,
    { unclassified: /names a payment intent but the body gives no usable id/ },
    'the numeric data.id and the tx_ref are not ours',
  ],
  [
    'Flutterwave transfer.completed',
    shapes.flutterwaveTransferCompleted,
    { kind: 'transfer', reference: 'a0a827b1eca65311_PMCKDU_5' },
    'as Paystack: looked up by reference, the numeric id ignored',
  ],
  [
    'CinetPay notification (a form post)',
    shapes.cinetpayNotificationForm,
    { unclassified: /the body is not JSON/ },
    'the receiver only takes JSON; the classifier says so if one gets through',
  ],
  [
    'pawaPay refund callback',
    shapes.pawapayRefundCallback,
    { unclassified: /no event type and no resource id/ },
    'a refundId that is a UUID is not a refund of ours',
  ],
  [
    'pawaPay deposit callback',
    shapes.pawapayDepositCallback,
    { unclassified: /no event type and no resource id/ },
    'no type, and depositId is not an intent id',
  ],
  [
    'Checkout.com payment_refunded',
    shapes.checkoutComPaymentRefunded,
    { unclassified: /"payment_refunded" names a payment refund but the body gives no usable id/ },
    'pay_… and act_… are not numeric refund ids',
  ],
  [
    'Razorpay refund.created',
    shapes.razorpayRefundCreated,
    { unclassified: /"refund\.created" names a refund but the body gives no usable id/ },
    'rfnd_… is not a numeric refund id',
  ],
  [
    'CloudEvents spec example',
    shapes.cloudEventsSpecExample,
    { unclassified: /unknown event type "com\.github\.pull_request\.opened"/ },
    'a bare number in subject names a refund only when the type says refund',
  ],
];

function summary(result: EventClassification): Expected {
  if (result.outcome === 'resource') {
    return {
      kind: result.kind,
      ...(result.id ? { id: result.id } : {}),
      ...(result.reference ? { reference: result.reference } : {}),
    };
  }
  return { unclassified: /./ };
}

describe('classifyEvent on other providers’ documented webhooks', () => {
  test.each(table)('%s', (_label, body, expected, why) => {
    const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const result = classifyEvent(raw);
    if ('unclassified' in expected) {
      expect(result.outcome, why).toBe('unclassified');
      if (result.outcome === 'unclassified')
        expect(result.reason, why).toMatch(expected.unclassified);
    } else {
      expect(summary(result), why).toEqual(expected);
    }
  });

  test('covers at least five providers', () => {
    const providers = new Set(table.map(([label]) => label.split(' ')[0]));
    expect(providers.size).toBeGreaterThanOrEqual(5);
  });
});
