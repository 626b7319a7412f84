import { isRefundKind, kindOfId, type ResourceKind } from '../resources/index.ts';
import { kindOfEventType, numericId, text } from './resource-naming.ts';

/** A resource named by a path: its kind when the path says it, and its id. */
export interface PathHandle {
  /** Absent for a bare number, which names a refund only when the event type says so. */
  readonly kind?: ResourceKind;
  readonly id: string;
}

function pathOf(value: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    try {
      return new URL(value).pathname;
    } catch {
      return value;
    }
  }
  return value.split(/[?#]/)[0] ?? value;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment).trim();
  } catch {
    return segment.trim();
  }
}

/**
 * Reads a CloudEvents `subject` or `source` (`transfers/tr_…`, `refunds/123`,
 * `https://api…/payment-intents/pi_…`, `urn:x:payment-links:pl_…`, a bare `tr_…`) for the
 * resource it names. The last id in the path wins: `transfers/tr_1/refunds/7` is refund 7.
 * A numeric segment counts only after a refund collection (`refunds`, `payments-refund`), or
 * alone; a number after anything else (`merchants/42`) is not one of our resources.
 */
export function handleFromPath(value: unknown): PathHandle | undefined {
  const raw = text(value);
  if (!raw) return undefined;
  const segments = pathOf(raw)
    .split(/[/:]/)
    .map(decoded)
    .filter((segment) => segment !== '');
  if (segments.length === 1 && numericId(segments[0])) return { id: segments[0]! };
  for (let i = segments.length - 1; i >= 0; i -= 1) {
    const segment = segments[i]!;
    const kind = kindOfId(segment);
    if (kind) return { kind, id: segment };
    const id = numericId(segment);
    const collection = i > 0 ? kindOfEventType(segments[i - 1]!) : undefined;
    if (id && isRefundKind(collection)) {
      // A refund listed under a payment intent is a payment refund.
      const underIntent = segments
        .slice(0, i - 1)
        .some((s) => kindOfId(s) === 'payment_intent' || kindOfEventType(s) === 'payment_intent');
      return { kind: underIntent ? 'payment_refund' : collection, id };
    }
  }
  return undefined;
}
