import { z } from 'zod';
import { isoDateTime } from './common.schema.ts';

export const submerchantStatus = z
  .enum(['live', 'sandbox', 'testing', 'suspended', 'archived'])
  .meta({ id: 'SubmerchantStatus' });

export const submerchant = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    description: z.string().nullish(),
    address: z.string().nullish(),
    zipcode: z.string().nullish(),
    city: z.string().nullish(),
    phoneNumber: z.string().nullish(),
    country: z.string(),
    currency: z.string(),
    isActive: z.boolean(),
    status: submerchantStatus,
    // The listed values are not exhaustive (a sample shows another one), so any string.
    activity: z.string().nullish(),
    preferences: z
      .looseObject({ paymentWalletRestrictMsisdnEnabled: z.boolean().nullish() })
      .nullish(),
    members: z.array(z.unknown()).nullish(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    legalInfo: z.unknown().optional(),
    policies: z.unknown().optional(),
    internalCode: z.string().nullish(),
    isAggregator: z.boolean().nullish(),
    merchantGroup: z.string().nullish(),
  })
  .meta({ id: 'Submerchant' });
export type Submerchant = z.infer<typeof submerchant>;

/**
 * Every check here is shown by the document: `name` (string, required); description, address,
 * zipcode, city, phoneNumber (strings, optional).
 */
export const createSubmerchantBody = z
  .looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    address: z.string().optional(),
    zipcode: z.string().optional(),
    city: z.string().optional(),
    phoneNumber: z.string().optional(),
  })
  .meta({ id: 'SubmerchantCreationRequest' });
export type CreateSubmerchantBody = z.input<typeof createSubmerchantBody>;
