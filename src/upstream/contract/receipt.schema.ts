import { z } from 'zod';
import { queryBoolean } from './common.schema.ts';

export const receipt = z.looseObject({ view: z.string() }).meta({ id: 'Receipt' });
export type Receipt = z.infer<typeof receipt>;

/**
 * The boolean's name is not shown. We call it `isReceiptId`: true when `id` is a receipt id,
 * false when it is a transfer or payment id. The name is paysync's choice; that it is an
 * optional boolean is shown by the document.
 */
export const getReceiptQuery = z.object({ isReceiptId: queryBoolean.optional() });
