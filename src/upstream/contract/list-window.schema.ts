import { z } from 'zod';
import { isoDateTime, queryInteger } from './common.schema.ts';

/**
 * The paging and date-window parameters shared by GET /payment-intents and GET /transfers.
 * Both bounds are inclusive. Documented defaults: `from` = first day of the current month
 * (UTC), `to` = now, `page` = 1, `perPage` = 10.
 */
export const listWindowQuery = z.object({
  from: isoDateTime.optional(),
  to: isoDateTime.optional(),
  page: queryInteger(1).optional(),
  perPage: queryInteger(1).optional(),
});

export const DEFAULT_PAGE = 1;
export const DEFAULT_PER_PAGE = 10;

/** Midnight UTC on the first day of `now`'s month: the documented default of `from`. */
export function defaultFrom(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
