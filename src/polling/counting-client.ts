import type { RequestRateLimiter, UpstreamClient } from '../upstream/index.ts';

const LIST_METHODS: ReadonlySet<PropertyKey> = new Set(['listPaymentIntents', 'listTransfers']);

/**
 * The client as the window walker sees it, counting list calls for the run record and, when
 * given, waiting on an extra limiter first (a backfill's own share of the shared budget).
 */
export function countingClient(
  client: UpstreamClient,
  tally: { calls: number },
  extraLimiter?: RequestRateLimiter,
): UpstreamClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (!LIST_METHODS.has(property) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await extraLimiter?.acquire();
        tally.calls += 1;
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
}
