export * from './contract/index.ts';
export * from './errors.ts';
export {
  clientOptionsFromConfig,
  DEFAULT_CLIENT_OPTIONS,
  resolveClientOptions,
  type FetchLike,
  type ResolvedClientOptions,
  type UpstreamClientOptions,
} from './client-options.ts';
export {
  createUpstreamClient,
  UpstreamClient,
  type CallInput,
  type QueryInput,
  type RequestOptions,
  type UpstreamClientStats,
} from './upstream-client.ts';
export {
  walkWindow,
  walkWindowPages,
  type WindowedOperationId,
  type WindowItem,
  type WindowPage,
  type WindowWalkOptions,
} from './paging.ts';
export { serializeQuery, toIsoUtc, withListDefaults } from './query-string.ts';
export {
  BUDGET_POINTS_PER_REQUEST,
  createRequestRateLimiter,
  DEFAULT_RECEIPTS_SHARE,
  type AdaptiveRateLimiter,
  type BudgetLane,
  type RequestRateLimiter,
} from './rate-limit.ts';
export { upstreamRetriesTotal, upstreamRequestsTotal } from './upstream-metrics.ts';
