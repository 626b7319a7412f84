import type { ResourceKind } from '../resources/index.ts';

/** Subjects paysync recognises but keeps no books for (they carry no money). */
export type IgnoredSubject = 'submerchant' | 'kyb';

/** A non-empty, trimmed string, or nothing. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Refund ids are numbers; some senders quote them. Negative or fractional numbers are not ids. */
export function numericId(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  const id = text(value);
  return id && /^\d{1,15}$/.test(id) ? id : undefined;
}

/** `paymentIntent.Succeeded`, `payment-intent succeeded` → `payment_intent.succeeded`. */
function normaliseType(type: string): string {
  return type
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/**
 * The kind a free-text name points at: an event type (`refund.updated`), a resource type
 * (`payment_refund`) or a path segment (`payments-refund`). Checked most specific first
 * (`payment_refund` before `refund`).
 */
export function kindOfEventType(type: string): ResourceKind | IgnoredSubject | undefined {
  const t = normaliseType(type);
  if (/payment_?refund|payments_refund|payment\.refund/.test(t)) return 'payment_refund';
  if (/refund/.test(t)) return 'refund';
  if (/(payment|subscription)_?link|(^|[._])link([._]|$)/.test(t)) return 'payment_link';
  if (/submerchant|sub_merchant/.test(t)) return 'submerchant';
  if (/kyb|compliance/.test(t)) return 'kyb';
  if (/transfer|payout/.test(t)) return 'transfer';
  if (/payment_?intent|(^|[._])payment([._]|$)|terminal|charge/.test(t)) return 'payment_intent';
  return undefined;
}

/** One of the five kinds paysync keeps books for (not an ignored subject). */
export function isLedgerKind(
  kind: ResourceKind | IgnoredSubject | undefined,
): kind is ResourceKind {
  return kind !== undefined && kind !== 'submerchant' && kind !== 'kyb';
}
