import type { ResourceKind } from './resource-kind.ts';

/**
 * The documented id prefixes and the kind each names. Refund ids are bare numbers, so no
 * prefix names a refund kind.
 */
export const ID_PREFIXES = {
  pi_: 'payment_intent',
  tr_: 'transfer',
  pl_: 'payment_link',
} as const satisfies Record<string, ResourceKind>;

/** The kinds an id prefix can name. */
export type PrefixedKind = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

/**
 * The kind an id's documented prefix names (`tr_…` → transfer), or undefined for anything else:
 * a refund's numeric id, a bare prefix (`tr_`), a value that is not a string. Surrounding
 * whitespace is ignored, as senders are not always tidy.
 */
export function kindOfId(value: unknown): PrefixedKind | undefined {
  if (typeof value !== 'string') return undefined;
  const id = value.trim();
  for (const [prefix, kind] of Object.entries(ID_PREFIXES)) {
    if (id.startsWith(prefix) && id.length > prefix.length) return kind;
  }
  return undefined;
}
