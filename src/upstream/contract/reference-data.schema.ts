import { z } from 'zod';
import { openRecord, queryArray } from './common.schema.ts';

/** Fields of the country record: not shown. */
export const country = openRecord.meta({ id: 'Country' });
export type Country = z.infer<typeof country>;

/** Fields of the provider record: not shown. */
export const provider = openRecord.meta({ id: 'Provider' });
export type Provider = z.infer<typeof provider>;

export const bank = z
  .looseObject({ bankName: z.string(), bankCode: z.string(), country: z.string() })
  .meta({ id: 'Bank' });
export type Bank = z.infer<typeof bank>;

/** Country code → banks of that country. */
export const bankCodes = z.record(z.string(), z.array(bank)).meta({ id: 'BankCodes' });
export type BankCodes = z.infer<typeof bankCodes>;

export const countryPaymentMethod = z.enum([
  'mobile_money',
  'credit_card',
  'bank_transfer',
  'instant_payment',
]);

export const providerMethod = z.enum([
  'mobile_money',
  'bank_transfer',
  'airtime',
  'credit_card',
  'cash',
  'instant_payment',
]);

/** Query checks of the reference data: every one is shown by the document. */
export const listCountriesQuery = z.object({ method: countryPaymentMethod.optional() });

export const listProvidersQuery = z.object({
  method: providerMethod.optional(),
  country: z.string().optional(),
  status: z.enum(['enabled', 'disabled']).optional(),
  names: queryArray(z.string()).optional(),
});
