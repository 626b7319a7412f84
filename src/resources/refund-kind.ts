import type { ResourceKind } from './resource-kind.ts';

/** The two refund kinds: a transfer's refund and a payment intent's refund. */
export type RefundKind = Extract<ResourceKind, 'refund' | 'payment_refund'>;

/** Refunds are the kinds whose ids are numbers rather than prefixed strings. */
export function isRefundKind(kind: unknown): kind is RefundKind {
  return kind === 'refund' || kind === 'payment_refund';
}
