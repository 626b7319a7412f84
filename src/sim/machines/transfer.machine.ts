import { FORCED_FAILURE, INSUFFICIENT_BALANCE } from '../sandbox-outcomes.ts';
import type { SimItem } from '../engine/sim-store.ts';
import type { Machine, MachineContext } from './machine.ts';

function accountOf(item: SimItem<'transfer'>) {
  return item.resource.isIrt ? ('transfer-irt' as const) : ('transfer' as const);
}

/** Amount plus fees: what a successful transfer takes from the merchant's account. */
export function transferCost(item: SimItem<'transfer'>): number {
  return item.resource.fees.reduce((sum, fee) => sum + fee.amount, item.resource.amount);
}

function settleOnItsOwn(context: MachineContext, item: SimItem<'transfer'>): void {
  const { mode, resource } = item;
  const available = context.ledger.balanceOf(mode, accountOf(item), resource.currency);
  if (item.plan.final === 'successful' && available < transferCost(item)) {
    item.plan = { ...item.plan, final: 'failed', failureCause: INSUFFICIENT_BALANCE };
  }
  context.transition(item, item.plan.final);
}

/**
 * created → pending → successful | failed. A successful transfer debits the transfer (or
 * transfer-irt) account by its amount and, as separate movements, each of its fees.
 */
export const transferMachine: Machine<'transfer'> = {
  kind: 'transfer',
  transitions: {
    created: ['pending', 'failed'],
    pending: ['successful', 'failed'],
    successful: [],
    failed: [],
  },
  prepare(_context, item, to) {
    if (to === 'failed') item.resource.failureCause = item.plan.failureCause ?? FORCED_FAILURE;
  },
  enter(context, item, status) {
    const { timings } = context;
    if (status === 'created') {
      context.schedule(item, timings.transferPendingAfterMs, 'created', () =>
        context.transition(item, 'pending'),
      );
    } else if (status === 'pending') {
      const wait = item.plan.settleAfterMs ?? timings.transferSettleAfterMs;
      context.schedule(item, wait, 'pending', () => settleOnItsOwn(context, item));
    } else if (status === 'successful') {
      const { mode, resource } = item;
      const account = accountOf(item);
      context.move(mode, account, resource.currency, -resource.amount, 'transfer', resource.id);
      for (const fee of resource.fees) {
        context.move(mode, account, fee.currency, -fee.amount, 'transfer_fee', resource.id);
      }
    }
  },
};
