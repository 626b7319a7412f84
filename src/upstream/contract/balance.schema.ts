import { z } from 'zod';
import { currency, isoDateTime, openRecord, queryArray } from './common.schema.ts';

export const accountType = z
  .enum(['collection', 'transfer', 'transfer-irt', 'cross-border'])
  .meta({ id: 'AccountType' });
export type AccountType = z.infer<typeof accountType>;

/** Every check here is shown by the document. */
export const getBalanceQuery = z.object({
  date: isoDateTime.optional(),
  currency: currency.optional(),
  accountType: queryArray(accountType).optional(),
});

/** Fields of the balances response: not shown. Open on purpose. */
export const balanceResponse = openRecord.meta({ id: 'Balances' });
export type BalanceResponse = z.infer<typeof balanceResponse>;

/**
 * The shape the simulator returns (`{ date, balances: [{ accountType, currency, amount }] }`).
 * Not part of the contract: read it with {@link readBalanceView}, which says `undefined` when the
 * real service answers differently.
 */
export const balanceView = z.looseObject({
  date: isoDateTime.nullish(),
  balances: z.array(
    z.looseObject({
      accountType: z.string(),
      currency,
      // A balance may be zero or negative, unlike a movement.
      amount: z.number().int(),
    }),
  ),
});
export type BalanceView = z.infer<typeof balanceView>;

export function readBalanceView(response: BalanceResponse): BalanceView | undefined {
  const parsed = balanceView.safeParse(response);
  return parsed.success ? parsed.data : undefined;
}
