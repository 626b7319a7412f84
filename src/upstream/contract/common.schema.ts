import { z } from 'zod';

/**
 * Building blocks shared by every resource of the payment service. Where the interface
 * document fixes a format (amounts, currencies, id prefixes, UTC datetimes) the schema holds
 * the service to it, so a break surfaces as a ContractError instead of a bad booking.
 */

/** ISO 8601 UTC datetime (`Z` suffix); the service promises milliseconds, we accept any precision. */
export const isoDateTime = z.iso
  .datetime()
  .meta({ description: 'ISO 8601 UTC datetime', example: '2024-05-01T12:00:00.000Z' });

/** Calendar date `YYYY-MM-DD`. */
export const isoDate = z.iso.date().meta({ example: '1990-01-31' });

/** A positive integer in the smallest currency unit. Floats and zero are contract breaks. */
export const amount = z
  .number()
  .int()
  .positive()
  .meta({ description: 'Positive integer in the smallest currency unit', example: 5000 });

/** Fees may legitimately be zero, never negative or fractional. */
export const feeAmount = z
  .number()
  .int()
  .nonnegative()
  .meta({ description: 'Non-negative integer in the smallest currency unit', example: 150 });

export const currency = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code')
  .meta({ description: 'ISO 4217 currency code', example: 'XOF' });

export const countryCode = z
  .string()
  .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code')
  .meta({ description: 'ISO 3166-1 alpha-2 country code', example: 'SN' });

export const mode = z.enum(['live', 'sandbox']).meta({ id: 'Mode' });
export type Mode = z.infer<typeof mode>;

export const environment = z.enum(['live', 'sandbox']);
export type Environment = z.infer<typeof environment>;

function prefixedId(prefix: string, what: string) {
  return z
    .string()
    .regex(new RegExp(`^${prefix}_.+$`), `must be a ${what} id starting with ${prefix}_`)
    .meta({ description: `${what} id, \`${prefix}_<id>\``, example: `${prefix}_123` });
}

export const paymentIntentId = prefixedId('pi', 'payment intent');
export const transferId = prefixedId('tr', 'transfer');
export const webhookId = prefixedId('wh', 'webhook');
export const paymentLinkId = prefixedId('pl', 'payment link');

/** `code`/`message`/`params` triple used for payment and transfer failures. */
export const failureCause = z
  .looseObject({
    code: z.string().nullish(),
    message: z.string().nullish(),
    params: z.array(z.string()).nullish(),
  })
  .meta({ id: 'FailureCause' });
export type FailureCause = z.infer<typeof failureCause>;

/** A record whose fields the interface document does not show: anything goes through. */
export const openRecord = z.looseObject({});
export type OpenRecord = z.infer<typeof openRecord>;

/**
 * Query-string helpers. A query arrives as strings (server side) and leaves as typed values
 * (client side); these accept both so one schema serves the simulator and the client.
 */
export const queryInteger = (min: number) => z.coerce.number().int().min(min);

/** Any finite number, as a number or its decimal text; an empty or null value is not one. */
export const queryNumber = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
  z.number(),
);

export const queryBoolean = z.preprocess(
  (value) => (value === 'true' ? true : value === 'false' ? false : value),
  z.boolean(),
);

/** Repeated (`a=x&a=y`) or comma-separated (`a=x,y`) parameters, as the document allows. */
export function queryArray<T extends z.ZodType>(item: T) {
  return z.preprocess((value) => {
    const list = Array.isArray(value) ? value : value === undefined ? value : [value];
    return list?.flatMap((entry: unknown) =>
      typeof entry === 'string' ? entry.split(',').filter((s) => s !== '') : [entry],
    );
  }, z.array(item));
}
