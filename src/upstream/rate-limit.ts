import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterQueue, RateLimiterRedis } from 'rate-limiter-flexible';

/** Waits until a request may go out. Never rejects for being over the limit: it queues. */
export interface RequestRateLimiter {
  acquire(): Promise<void>;
}

export interface RateLimiterSettings {
  rps: number;
  redis?: Redis | undefined;
  /**
   * Redis key prefix of the deployment (the client's `rateLimitKey`, by default
   * `<PAYSYNC_QUEUE_PREFIX>:upstream:rps`). The budget's key is this prefix, the environment and
   * the merchant id: see {@link rateLimitKeyOf}.
   */
  key: string;
  /** Whose budget this is: the service counts requests per merchant. */
  merchantId: string;
  /** `live` and `sandbox` are budgeted apart, even for one merchant id. */
  environment: string;
}

/**
 * The Redis key of one budget: `<prefix>:<environment>:<merchant id>`. Two deployments on one
 * Redis, two merchants, or live and sandbox of one merchant, never share a budget; the
 * processes of one deployment (same prefix, merchant and environment) always do. The merchant
 * id is percent-encoded so an id holding `:` cannot reach another budget's key.
 */
export function rateLimitKeyOf(
  settings: Pick<RateLimiterSettings, 'key' | 'merchantId' | 'environment'>,
): string {
  return `${settings.key}:${settings.environment}:${encodeURIComponent(settings.merchantId)}`;
}

/**
 * A one-second window of `rps` points. With Redis the window is shared by every process of the
 * deployment, and only by them (see {@link rateLimitKeyOf}); if Redis is unavailable the in-memory insurance limiter keeps this process at
 * `rps` instead of failing requests. `execEvenly` spreads a window's requests over the second
 * so two adjacent windows cannot put 2×rps into one second of the service's view.
 */
export function createRequestRateLimiter(settings: RateLimiterSettings): RequestRateLimiter {
  const points = Math.max(1, Math.floor(settings.rps));
  const keyPrefix = rateLimitKeyOf(settings);
  const memory = new RateLimiterMemory({
    points,
    duration: 1,
    execEvenly: true,
    keyPrefix,
  });
  const limiter = settings.redis
    ? new RateLimiterRedis({
        storeClient: settings.redis,
        points,
        duration: 1,
        execEvenly: true,
        keyPrefix,
        insuranceLimiter: memory,
      })
    : memory;
  const queue = new RateLimiterQueue(limiter);
  return {
    async acquire() {
      await queue.removeTokens(1);
    },
  };
}
