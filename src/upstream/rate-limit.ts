import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterQueue, RateLimiterRedis } from 'rate-limiter-flexible';

/** Waits until a request may go out. Never rejects for being over the limit: it queues. */
export interface RequestRateLimiter {
  acquire(): Promise<void>;
}

export interface RateLimiterSettings {
  rps: number;
  redis?: Redis | undefined;
  /** Redis key prefix; every process with the same prefix shares one budget. */
  key: string;
}

/**
 * A one-second window of `rps` points. With Redis the window is shared by every process of the
 * deployment; if Redis is unavailable the in-memory insurance limiter keeps this process at
 * `rps` instead of failing requests. `execEvenly` spreads a window's requests over the second
 * so two adjacent windows cannot put 2×rps into one second of the service's view.
 */
export function createRequestRateLimiter(settings: RateLimiterSettings): RequestRateLimiter {
  const points = Math.max(1, Math.floor(settings.rps));
  const memory = new RateLimiterMemory({
    points,
    duration: 1,
    execEvenly: true,
    keyPrefix: settings.key,
  });
  const limiter = settings.redis
    ? new RateLimiterRedis({
        storeClient: settings.redis,
        points,
        duration: 1,
        execEvenly: true,
        keyPrefix: settings.key,
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
