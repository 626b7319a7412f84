/**
 * The words every component shares about the service's resources: which kinds exist and how a
 * change was learned. The ledger, the inbox and the queues all speak them; none owns them.
 */
export type { ObservedVia } from './observed-via.ts';
export type { ResourceKind } from './resource-kind.ts';
