/**
 * The words every component shares about the service's resources: which kinds exist, which id
 * prefix names which kind, and how a change was learned. The ledger, the inbox, the queues and
 * the receiver all speak them; none owns them.
 */
export { ID_PREFIXES, kindOfId, type PrefixedKind } from './kind-of-id.ts';
export type { ObservedVia } from './observed-via.ts';
export { isRefundKind, type RefundKind } from './refund-kind.ts';
export { RESOURCE_KINDS, type ResourceKind } from './resource-kind.ts';
