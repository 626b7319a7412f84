import type { ResourceKind } from '../queues/job-types.ts';

/** The resources the ledger mirrors and books. Payment links carry no money of their own. */
export type LedgerResourceKind = Exclude<ResourceKind, 'payment_link'>;

export const LEDGER_RESOURCE_KINDS: readonly LedgerResourceKind[] = [
  'payment_intent',
  'transfer',
  'refund',
  'payment_refund',
];

/** What a journal is about: an item, or one of the ledger's own bookings. */
export type JournalResourceKind = LedgerResourceKind | 'opening_balance' | 'adjustment';
