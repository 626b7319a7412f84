import type { LedgerResourceKind } from './ledger-resource-kind.ts';

const TERMINAL = new Set(['successful', 'failed', 'canceled']);

/** Terminal for the service's status enums: successful, failed, canceled. */
export function isTerminal(status: string): boolean {
  return TERMINAL.has(status);
}

/**
 * A status nothing may lead back out of into a non-terminal one. A payment intent's `failed`
 * is the exception: it ends one attempt, and a later attempt on the same intent may still pay
 * it (failed → processing → successful is normal).
 */
export function isAbsorbing(kind: LedgerResourceKind, status: string): boolean {
  if (kind === 'payment_intent' && status === 'failed') return false;
  return isTerminal(status);
}

/**
 * The status the mirror takes when the service says `upstream` after `current`: the service's,
 * except that an absorbing status is held when the service goes back to a non-terminal one.
 */
export function nextMirrorStatus(
  kind: LedgerResourceKind,
  current: string,
  upstream: string,
): string {
  return isAbsorbing(kind, current) && !isTerminal(upstream) ? current : upstream;
}
