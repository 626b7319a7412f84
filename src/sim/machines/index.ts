import type { ItemKind } from '../engine/sim-resources.ts';
import { kybMachine } from './kyb.machine.ts';
import type { Machine } from './machine.ts';
import { paymentIntentMachine } from './payment-intent.machine.ts';
import { paymentLinkMachine } from './payment-link.machine.ts';
import { paymentRefundMachine } from './payment-refund.machine.ts';
import { refundMachine } from './refund.machine.ts';
import { submerchantMachine } from './submerchant.machine.ts';
import { transferMachine } from './transfer.machine.ts';

export type { Machine, MachineContext } from './machine.ts';
export { statusOf } from './machine.ts';

/** Every resource's state machine, by item kind. */
export const MACHINES: { readonly [K in ItemKind]: Machine<K> } = {
  payment_intent: paymentIntentMachine,
  transfer: transferMachine,
  refund: refundMachine,
  payment_refund: paymentRefundMachine,
  payment_link: paymentLinkMachine,
  submerchant: submerchantMachine,
  kyb: kybMachine,
};

/** The shortest path of statuses from `from` to `to` (excluding `from`), or undefined. */
export function pathBetween(
  machine: Machine<ItemKind>,
  from: string,
  to: string,
): string[] | undefined {
  if (from === to) return [];
  const previous = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length > 0) {
    const status = queue.shift() as string;
    for (const next of machine.transitions[status] ?? []) {
      if (previous.has(next)) continue;
      previous.set(next, status);
      if (next === to) {
        const path = [to];
        for (let step = status; step !== from; step = previous.get(step) as string)
          path.unshift(step);
        return path;
      }
      queue.push(next);
    }
  }
  return undefined;
}
