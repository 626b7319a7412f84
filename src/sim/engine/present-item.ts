import type { SimItem } from './sim-store.ts';

/**
 * How an item looks on the wire. `full` is what a retrieval or creation returns and what a
 * webhook carries. `list` follows the interface document's notes on list responses: fee
 * `type`, `nextAction` and the failure `code` are absent there.
 */
export type Presentation = 'full' | 'list';

export function presentItem(
  item: SimItem,
  presentation: Presentation = 'full',
): Record<string, unknown> {
  const body = structuredClone(item.resource) as unknown as Record<string, unknown>;
  if (item.kind === 'kyb') delete body.status;
  if (presentation === 'list') {
    if (item.kind === 'transfer') {
      for (const fee of body.fees as Record<string, unknown>[]) delete fee.type;
    }
    if (item.kind === 'payment_intent') {
      delete body.nextAction;
      const failure = body.lastPaymentFailure as Record<string, unknown> | undefined;
      if (failure) delete failure.code;
    }
  }
  return body;
}
