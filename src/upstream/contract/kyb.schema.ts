import { z } from 'zod';
import { isoDateTime } from './common.schema.ts';

export const kybRecord = z
  .looseObject({
    id: z.number().int().nonnegative(),
    merchantId: z.string(),
    name: z.string(),
    businessType: z.string().nullish(),
    businessRegistrationId: z.string().nullish(),
    taxNumber: z.string().nullish(),
    directorName: z.string().nullish(),
    websiteUrl: z.string().nullish(),
    country: z.string().nullish(),
    headquarterAddress: z.string().nullish(),
    createdAt: isoDateTime,
    deletedAt: isoDateTime.nullish(),
  })
  .meta({ id: 'KybRecord' });
export type KybRecord = z.infer<typeof kybRecord>;

/**
 * Every check here is shown by the document: the field list, all strings. Which fields are
 * required is not shown, so none is.
 */
export const kybBody = z
  .looseObject({
    name: z.string().optional(),
    businessType: z.string().optional(),
    businessRegistrationId: z.string().optional(),
    taxNumber: z.string().optional(),
    directorName: z.string().optional(),
    websiteUrl: z.string().optional(),
    country: z.string().optional(),
    headquarterAddress: z.string().optional(),
  })
  .meta({ id: 'KybRequest' });
export type KybBody = z.input<typeof kybBody>;
