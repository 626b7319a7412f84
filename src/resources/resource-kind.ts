/** The resources a webhook can name, and so the resources a sync job fetches. */
export type ResourceKind =
  'payment_intent' | 'transfer' | 'refund' | 'payment_refund' | 'payment_link';

/** Every {@link ResourceKind}, for reading one back from a stored column. */
export const RESOURCE_KINDS: readonly ResourceKind[] = [
  'payment_intent',
  'transfer',
  'refund',
  'payment_refund',
  'payment_link',
];
