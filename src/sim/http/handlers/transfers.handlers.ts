import { SimError } from '../../engine/sim-error.ts';
import { presentForWire } from '../../engine/present-item.ts';
import { createTransfer } from '../../factories/create-transfer.ts';
import { isKnownProvider } from '../../reference-data.ts';
import { filterToWindow, itemsInWindow, pageOf } from './list-window.ts';
import { visibleIn, type OperationHandlers, type OperationRequest } from './handler-types.ts';

function fullName(
  person: { firstName?: string | undefined; lastName?: string | undefined } | undefined,
): string {
  return [person?.firstName, person?.lastName].filter(Boolean).join(' ');
}

/** The fields the simulator needs beyond what the contract requires, as validation messages. */
function missingIrtFields(body: OperationRequest<'createDelegatedIrtTransfer'>['body']): string[] {
  const missing: string[] = [];
  if (body.srcAmount === undefined) missing.push('srcAmount must be a positive integer');
  if (!body.destination?.country) missing.push('destination.country should not be empty');
  if (!body.destination?.msisdn) missing.push('destination.msisdn should not be empty');
  if (!body.destination?.provider) missing.push('destination.provider should not be empty');
  return missing;
}

export const transferHandlers: OperationHandlers<'listTransfers' | 'createDelegatedIrtTransfer'> = {
  listTransfers({ runtime, mode, query }) {
    const { store, clock } = runtime.engine;
    const nowMs = clock.nowMs();
    if (query.reference !== undefined) {
      // The document lists 404 for this list: the simulator answers it to an unknown reference.
      const withReference = store.withReference('transfer', 'reference', query.reference);
      if (!withReference.some((item) => visibleIn(mode, item))) {
        throw SimError.notFound('Transfer with reference', query.reference);
      }
    }
    const candidates =
      query.reference !== undefined
        ? filterToWindow(
            store.withReference('transfer', 'reference', query.reference),
            mode,
            query,
            nowMs,
          )
        : itemsInWindow(store, 'transfer', mode, query, nowMs);
    const inWindow =
      query.isDelegated === undefined
        ? candidates
        : candidates.filter((item) => item.resource.isDelegated === query.isDelegated);
    const page = pageOf(inWindow, query, runtime.faults.listOrder, runtime.engine.random);
    return { body: page.map((item) => presentForWire(item, 'list')) };
  },

  createDelegatedIrtTransfer({ runtime, mode = 'sandbox', body, requestId }) {
    const { engine } = runtime;
    const missing = missingIrtFields(body);
    if (missing.length > 0) throw SimError.validation(missing);
    const destination = body.destination ?? {};
    const type = destination.type ?? 'mobile_money';
    const country = destination.country ?? '';
    const provider = destination.provider ?? '';
    if (!isKnownProvider(provider, country, type)) {
      throw new SimError(
        'wrong_provider',
        `Provider ${provider} is not available for ${type} in ${country}`,
        [requestId],
      );
    }
    const taken = engine.store
      .withReference('transfer', 'reference', body.reference)
      .find((item) => item.mode === mode);
    if (taken)
      throw SimError.validation([`reference ${body.reference} is already used by ${taken.key}`]);
    const amount = body.srcAmount ?? 0;
    const forexRate = body.forexRate ?? '1';
    const transfer = createTransfer(engine, mode, {
      amount,
      currency: body.srcCurrency ?? 'XOF',
      reference: body.reference,
      description: body.description,
      isIrt: true,
      isDelegated: true,
      aggregatedMerchantId: body.aggregatedMerchantId,
      overrideBusinessName: body.overrideBusinessName,
      destination: {
        type,
        country,
        number: destination.msisdn ?? '',
        provider,
        recipientName: fullName(body.recipientKyc),
      },
      origin: {
        name: body.senderKyc?.name ?? fullName(body.senderKyc),
        country: body.srcCountry ?? '',
      },
      providerData: {
        forexRate,
        destinationCurrency: body.destinationCurrency ?? body.srcCurrency ?? 'XOF',
        destinationAmount: Math.round(amount * Number(forexRate)),
      },
      transferInformation: body.transferInformation as Record<string, string> | undefined,
    });
    return { body: presentForWire(transfer) };
  },
};
