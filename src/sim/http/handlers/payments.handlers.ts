import { SimError } from '../../engine/sim-error.ts';
import { presentForWire } from '../../engine/present-item.ts';
import { createPaymentIntent } from '../../factories/create-payment-intent.ts';
import { applyOtp, startPaymentAttempt } from '../../factories/start-payment-attempt.ts';
import { isKnownProvider } from '../../reference-data.ts';
import { SANDBOX_OTP } from '../../sandbox-outcomes.ts';
import { filterToWindow, itemsInWindow, pageOf } from './list-window.ts';
import { visibleIn, type OperationHandlers } from './handler-types.ts';

const otpIsValid = (otp: string) => otp === SANDBOX_OTP;

export const paymentHandlers: OperationHandlers<
  'createDelegatedPayment' | 'getPaymentIntent' | 'listPaymentIntents'
> = {
  createDelegatedPayment({ runtime, mode = 'sandbox', body }) {
    const { engine } = runtime;
    if (
      body.provider !== undefined &&
      body.country !== undefined &&
      !isKnownProvider(body.provider, body.country)
    ) {
      throw SimError.validation([
        `provider ${body.provider} is not available in country ${body.country}`,
      ]);
    }
    // Paying a failed intent again: the same purchaseReference makes a new attempt on it.
    const failedCopy = engine.store
      .withReference('payment_intent', 'purchaseReference', body.purchaseReference)
      .find((item) => item.mode === mode && item.resource.status === 'failed');
    // A list read may hand out a copy of an item at rest in the cold store: take the live one.
    const failed = failedCopy && engine.store.get('payment_intent', failedCopy.key);
    if (failed) {
      const input = { payerNumber: body.phoneNumber, provider: body.provider, otp: body.otp };
      return { body: presentForWire(startPaymentAttempt(engine, failed, input, otpIsValid)) };
    }
    const intent = createPaymentIntent(engine, mode, {
      amount: body.amount,
      currency: body.currency,
      purchaseReference: body.purchaseReference,
      customerReference: body.customerReference,
      payerNumber: body.phoneNumber,
      provider: body.provider,
      overrideBusinessName: body.overrideBusinessName,
      subMerchantId: body.subMerchantId,
    });
    if (intent.plan.otp && body.otp !== undefined) applyOtp(intent.plan, body.otp, otpIsValid);
    return { body: presentForWire(intent) };
  },

  getPaymentIntent({ runtime, mode, params }) {
    const intent = runtime.engine.store.peek('payment_intent', params.id);
    if (!intent || !visibleIn(mode, intent)) throw SimError.notFound('Payment intent', params.id);
    return { body: presentForWire(intent) };
  },

  listPaymentIntents({ runtime, mode, query }) {
    const { store, clock } = runtime.engine;
    const nowMs = clock.nowMs();
    const byReference =
      query.purchaseReference !== undefined
        ? store.withReference('payment_intent', 'purchaseReference', query.purchaseReference)
        : query.customerReference !== undefined
          ? store.withReference('payment_intent', 'customerReference', query.customerReference)
          : undefined;
    const inWindow = byReference
      ? filterToWindow(byReference, mode, query, nowMs).filter(
          (item) =>
            query.customerReference === undefined ||
            item.resource.customerReference === query.customerReference,
        )
      : itemsInWindow(store, 'payment_intent', mode, query, nowMs);
    const page = pageOf(inWindow, query, runtime.faults.listOrder, runtime.engine.random);
    return { body: page.map((item) => presentForWire(item, 'list')) };
  },
};
