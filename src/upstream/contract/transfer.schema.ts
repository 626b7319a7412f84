import { z } from 'zod';
import {
  amount,
  countryCode,
  currency,
  failureCause,
  feeAmount,
  isoDate,
  isoDateTime,
  mode,
  queryBoolean,
  transferId,
} from './common.schema.ts';
import { listWindowFields } from './list-window.schema.ts';
import { requestQuery, shownField } from './request-checks.ts';

export const transferStatus = z
  .enum(['created', 'successful', 'pending', 'failed'])
  .meta({ id: 'TransferStatus' });
export type TransferStatus = z.infer<typeof transferStatus>;

export const destination = z
  .looseObject({
    type: z.string(),
    country: z.string(),
    number: z.string(),
    provider: z.string(),
    recipientName: z.string().nullish(),
  })
  .meta({ id: 'Destination' });
export type Destination = z.infer<typeof destination>;

export const transferFee = z
  .looseObject({
    id: z.string(),
    rate: z.number(),
    // Present in the delegated IRT creation response, absent in the transfer list.
    type: z.string().nullish(),
    amount: feeAmount,
    currency,
    taxes: z.array(z.string()).nullish(),
    label: z.string().nullish(),
  })
  .meta({ id: 'TransferFee' });
export type TransferFee = z.infer<typeof transferFee>;

export const transferInformation = z
  .looseObject({
    recipient_name_hashmac: z.string().nullish(),
    transaction_purpose: z.string().nullish(),
  })
  .meta({ id: 'TransferInformation' });

export const transfer = z
  .looseObject({
    id: transferId,
    merchantId: z.string(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    reference: z.string(),
    description: z.string(),
    status: transferStatus,
    amount,
    currency,
    mode,
    destination,
    fees: z.array(transferFee),
    isIrt: z.boolean(),
    providerReference: z.string(),
    gatewayId: z.string(),
    isDelegated: z.boolean(),
    aggregatedMerchantId: z.string(),
    failureCause: failureCause.nullish(),
    origin: z.looseObject({ name: z.string().nullish(), country: z.string().nullish() }).nullish(),
    overrideBusinessName: z.string().nullish(),
    overrideBusinessId: z.string().nullish(),
    providerData: z.looseObject({}).nullish(),
    subMerchantId: z.string().nullish(),
    transferInformation: transferInformation.nullish(),
  })
  .meta({ id: 'Transfer' });
export type Transfer = z.infer<typeof transfer>;

/**
 * Delegated IRT transfer body. Every check here is shown by the document: the field list and
 * types, the ISO codes, the `YYYY-MM-DD` dates, `forexRate` as decimal text, and `reference`
 * as the one field it requires ("Which of these fields are required: not shown, except that
 * `reference` is described as client-provided"). `srcAmount` follows the Conventions. The
 * simulator's further needs (`srcAmount`, `destination.country`, `msisdn`, `provider`) are
 * checked in its handler, so the client sends a body without them.
 */
export const delegatedIrtTransferBody = z
  .looseObject({
    reference: z.string().min(1),
    srcCountry: countryCode.optional(),
    srcCurrency: currency.optional(),
    srcAmount: amount.optional(),
    purpose: z.string().optional(),
    srcOriginFunds: z.string().optional(),
    srcOperator: z.string().optional(),
    destinationCurrency: currency.optional(),
    destination: z
      .looseObject({
        type: z.string().optional(),
        country: z.string().optional(),
        msisdn: z.string().optional(),
        provider: z.string().optional(),
      })
      .optional(),
    senderKyc: z
      .looseObject({
        payoutType: z.string().optional(),
        firstName: z.string().optional(),
        lastName: z.string().optional(),
        contactPhone: z.string().optional(),
        dateOfBirth: isoDate.optional(),
        nationality: z.string().optional(),
        name: z.string().optional(),
        countryOfIncorporation: z.string().optional(),
        legalEntityType: z.string().optional(),
        registrationDate: isoDate.optional(),
        registrationNumber: z.string().optional(),
        tradingCountry: z.string().optional(),
        tradingCity: z.string().optional(),
        tradingStreet: z.string().optional(),
        tradingPostalCode: z.string().optional(),
        natureOfBusiness: z.string().optional(),
        phoneNumber: z.string().optional(),
        email: z.string().optional(),
      })
      .optional(),
    recipientKyc: z
      .looseObject({
        firstName: z.string().optional(),
        lastName: z.string().optional(),
        contactPhone: z.string().optional(),
      })
      .optional(),
    aggregatedMerchantId: z.string().optional(),
    srcZone: z.string().optional(),
    forexRate: z
      .string()
      .regex(/^\d+(\.\d+)?$/, 'must be a decimal number as text')
      .optional(),
    description: z.string().optional(),
    overrideBusinessName: z.string().optional(),
    bankName: z.string().optional(),
    transferInformation: transferInformation.optional(),
  })
  .meta({ id: 'DelegatedIrtTransferRequest' });
export type DelegatedIrtTransferBody = z.input<typeof delegatedIrtTransferBody>;

/** Every check here is shown by the document, except the list window's (see there). */
export const listTransfersQuery = requestQuery({
  ...listWindowFields,
  reference: shownField(z.string(), 'query reference (optional)'),
  isDelegated: shownField(queryBoolean, 'query isDelegated (optional boolean)'),
});
