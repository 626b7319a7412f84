import type { SimItem } from './sim-store.ts';

/**
 * How an item looks on the wire. `full` is what a retrieval or creation returns and what a
 * webhook carries. `list` follows the interface document's notes on list responses: fee
 * `type`, `nextAction` and the failure `code` are absent there.
 */
export type Presentation = 'full' | 'list';

/** The item as served: a deep copy the caller owns (the control surface hands it out). */
export function presentItem(
  item: SimItem,
  presentation: Presentation = 'full',
): Record<string, unknown> {
  return structuredClone(presentForWire(item, presentation));
}

/**
 * The same content as {@link presentItem}, without the deep copy: it shares objects with the
 * live item, so it is only for a caller that serialises it at once (an HTTP answer, a webhook
 * payload). Copying every resource per request and per webhook was a visible share of the
 * simulator's CPU.
 */
export function presentForWire(
  item: SimItem,
  presentation: Presentation = 'full',
): Record<string, unknown> {
  const resource = item.resource as unknown as Record<string, unknown>;
  if (item.kind === 'kyb') {
    const { status: _status, ...rest } = resource;
    return rest;
  }
  if (presentation === 'full') return resource;
  if (item.kind === 'transfer') {
    const fees = resource.fees as Record<string, unknown>[];
    return { ...resource, fees: fees.map(({ type: _type, ...fee }) => fee) };
  }
  if (item.kind === 'payment_intent') {
    const { nextAction: _nextAction, ...rest } = resource;
    const failure = rest.lastPaymentFailure as Record<string, unknown> | undefined;
    if (failure) {
      const { code: _code, ...withoutCode } = failure;
      rest.lastPaymentFailure = withoutCode;
    }
    return rest;
  }
  return resource;
}
