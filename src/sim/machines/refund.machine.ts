import type { Machine } from './machine.ts';

/**
 * created → pending → successful | failed | pending_manual; pending_manual waits for the
 * control surface. A successful refund returns the transfer's amount (not its fees) to the
 * account the transfer was paid from.
 */
export const refundMachine: Machine<'refund'> = {
  kind: 'refund',
  transitions: {
    created: ['pending', 'failed'],
    pending: ['successful', 'failed', 'pending_manual'],
    pending_manual: ['successful', 'failed'],
    successful: [],
    failed: [],
  },
  enter(context, item, status) {
    const { timings } = context;
    if (status === 'created') {
      context.schedule(item, timings.refundPendingAfterMs, 'created', () =>
        context.transition(item, 'pending'),
      );
    } else if (status === 'pending') {
      const wait = item.plan.settleAfterMs ?? timings.refundSettleAfterMs;
      context.schedule(item, wait, 'pending', () => context.transition(item, item.plan.final));
    } else if (status === 'successful') {
      const { resource, mode } = item;
      const transfer = context.store.get('transfer', resource.transactionId);
      const account = transfer?.resource.isIrt ? 'transfer-irt' : 'transfer';
      context.move(
        mode,
        account,
        resource.currency,
        resource.amount,
        'transfer_refund',
        String(resource.id),
      );
    }
  },
};
