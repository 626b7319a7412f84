import { z } from 'zod';
import { amount, currency } from './common.schema.ts';
import type { RequestFields } from './request-checks.ts';

/**
 * The fields paysync's reading requires of a request that collects money, a delegated payment
 * or a payment link, where the document shows none: the amount and its currency, which follow
 * the document's Conventions, and a purchase reference. Declared once for both requests.
 */

/** What needs each field, in the request at hand: published after the field's own rule. */
export interface CollectionFieldReasons {
  readonly amount: string;
  readonly currency: string;
  readonly purchaseReference: string;
}

/** The amount, currency and purchase reference of a collection request, with their reasons. */
export function collectionFields(why: CollectionFieldReasons) {
  return {
    amount: {
      schema: amount,
      shown: 'all',
      required: 'paysync',
      why: `Conventions: a positive integer in the smallest currency unit; ${why.amount}`,
    },
    currency: {
      schema: currency,
      shown: 'all',
      required: 'paysync',
      why: `Conventions: ISO 4217; ${why.currency}`,
    },
    purchaseReference: {
      schema: z.string().min(1),
      shown: 'nothing',
      required: 'paysync',
      why: `a non-empty string; ${why.purchaseReference}`,
    },
  } as const satisfies RequestFields;
}
