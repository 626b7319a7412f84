import { isoDateTime, queryInteger, queryNumber } from './common.schema.ts';
import { shownField, type RequestFields } from './request-checks.ts';

/**
 * The paging and date-window parameters shared by GET /payment-intents and GET /transfers.
 * Both bounds are inclusive. Documented defaults: `from` = first day of the current month
 * (UTC), `to` = now, `page` = 1, `perPage` = 10.
 */
export const listWindowFields = {
  from: shownField(isoDateTime, '`from` and `to` are UTC ISO 8601 datetimes'),
  to: shownField(isoDateTime, '`from` and `to` are UTC ISO 8601 datetimes'),
  // The document says only "number"; a fractional or non-positive page is paysync's refusal.
  page: {
    schema: queryInteger(1),
    shown: queryNumber,
    why: 'an integer of at least 1 (the document: a number, default 1)',
  },
  perPage: {
    schema: queryInteger(1),
    shown: queryNumber,
    why: 'an integer of at least 1 (the document: a number, default 10)',
  },
} as const satisfies RequestFields;

export const DEFAULT_PAGE = 1;
export const DEFAULT_PER_PAGE = 10;

/** Midnight UTC on the first day of `now`'s month: the documented default of `from`. */
export function defaultFrom(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
