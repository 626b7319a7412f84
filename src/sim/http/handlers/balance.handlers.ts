import type { Balance } from '../../engine/money-ledger.ts';
import type { BalanceShape } from '../../faults/fault-settings.ts';
import type { OperationHandlers } from './handler-types.ts';

/** The same balances in each shape the simulator can be told to answer in. */
function shaped(shape: BalanceShape, date: string, balances: readonly Balance[]): object {
  switch (shape) {
    case 'list':
      return { date, balances };
    case 'keyed': {
      const keyed: Record<string, Record<string, number>> = {};
      for (const b of balances) (keyed[b.accountType] ??= {})[b.currency] = b.amount;
      return { asOf: date, balances: keyed };
    }
    case 'data':
      return {
        timestamp: date,
        data: balances.map((b) => ({
          account_type: b.accountType.replace('-', '_'),
          currency_code: b.currency,
          available: { amount: String(b.amount) },
        })),
      };
    case 'opaque':
      return {
        result: 'ok',
        total: String(balances.reduce((sum, b) => sum + b.amount, 0)),
      };
  }
}

/** Settled money as of `date`, in the shape `balanceShape` says (default `{ date, balances }`). */
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
    const date = new Date(atMs).toISOString();
    return { body: shaped(runtime.faults.balanceShape, date, balances) };
  },
};
