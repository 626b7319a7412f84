/**
 * The relay's event catalog by name (docs/relay.md, "Events"), and the type patterns an
 * endpoint subscribes with (`transfer.*`, `day.verdict`, `*`). The schema of each type's
 * `data` lives beside the code that builds it.
 */

/** The item kinds whose changes are relayed, by the prefix of their event types. */
export const RELAYED_ITEM_KINDS = [
  'payment_intent',
  'transfer',
  'refund',
  'payment_refund',
] as const;
export type RelayedItemKind = (typeof RELAYED_ITEM_KINDS)[number];

/** Every event type paysync emits, `ping` (sent by `endpoints test`) included. */
export const RELAY_EVENT_TYPES = [
  ...RELAYED_ITEM_KINDS.flatMap((kind) => [
    `${kind}.succeeded`,
    `${kind}.failed`,
    `${kind}.status_changed`,
  ]),
  'balance.drift_detected',
  'balance.drift_resolved',
  'day.verdict',
  'alert.raised',
  'ping',
] as const;
export type RelayEventType = (typeof RELAY_EVENT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(RELAY_EVENT_TYPES);
const PREFIXES: ReadonlySet<string> = new Set(RELAY_EVENT_TYPES.map((type) => type.split('.')[0]!));

/** True when `type` is in the catalog. */
export function isRelayEventType(type: string): type is RelayEventType {
  return KNOWN.has(type);
}

/**
 * Why a subscription pattern is not one paysync can match, or undefined when it is: a catalog
 * type (`day.verdict`), a prefix with `.*` (`transfer.*`), or `*` (every type).
 */
export function eventPatternProblem(pattern: string): string | undefined {
  if (pattern === '*' || KNOWN.has(pattern)) return undefined;
  const wildcard = /^([a-z_]+)\.\*$/.exec(pattern);
  if (wildcard && PREFIXES.has(wildcard[1]!)) return undefined;
  return `"${pattern}" is not an event type or a pattern such as transfer.* (the types: ${[...KNOWN].filter((type) => type !== 'ping').join(', ')})`;
}

/** True when `type` matches one of `patterns`; null or empty patterns match every type. */
export function matchesEventPatterns(
  patterns: readonly string[] | null | undefined,
  type: string,
): boolean {
  if (!patterns || patterns.length === 0) return true;
  return patterns.some(
    (pattern) =>
      pattern === '*' ||
      pattern === type ||
      (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))),
  );
}
