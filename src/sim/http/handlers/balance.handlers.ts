import type { OperationHandlers } from './handler-types.ts';

/** `{ date, balances: [{ accountType, currency, amount }] }`: settled money as of `date`. */
export const balanceHandlers: OperationHandlers<'getBalance'> = {
  getBalance({ runtime, mode = 'sandbox', query }) {
    const { engine } = runtime;
    const atMs = query.date === undefined ? engine.clock.nowMs() : Date.parse(query.date);
    const balances = engine.ledger.balances({
      mode,
      atMs,
      currency: query.currency,
      accountTypes: query.accountType,
    });
    return { body: { date: new Date(atMs).toISOString(), balances } };
  },
};
