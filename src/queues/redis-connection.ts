import { Redis } from 'ioredis';
import { hidePasswordInUrl } from '../config/index.ts';

/** Raised at start-up when Redis would silently drop queued jobs. */
export class RedisPolicyError extends Error {
  override readonly name = 'RedisPolicyError';
  constructor(
    readonly redisUrl: string,
    readonly policy: string,
  ) {
    super(
      `Redis at ${hidePasswordInUrl(redisUrl)} has maxmemory-policy ${policy}; BullMQ needs noeviction or it may lose queued events. Run \`redis-cli CONFIG SET maxmemory-policy noeviction\` and set it in redis.conf`,
    );
  }
}

/**
 * A connection for BullMQ. Workers block on Redis and must retry forever
 * (`maxRetriesPerRequest: null`, as BullMQ requires). Producers such as the receiver must
 * fail fast instead, so a Redis outage never holds a webhook response: the inbox row is
 * already committed and the recovery sweep enqueues it later. The producer pipelines
 * automatically: the commands of concurrent group commits issued in one turn of the event loop
 * travel to Redis in one write.
 */
export function createRedisConnection(url: string, role: 'worker' | 'producer'): Redis {
  const redis =
    role === 'worker'
      ? new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true })
      : new Redis(url, {
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          connectTimeout: 2000,
          commandTimeout: 2000,
          enableAutoPipelining: true,
        });
  // Without a listener ioredis prints every reconnect failure; callers log what matters.
  redis.on('error', () => undefined);
  return redis;
}

/** Refuses to go on when Redis may evict keys (and so jobs). */
export async function assertRedisNoEviction(redis: Redis, url: string): Promise<void> {
  const reply = (await redis.config('GET', 'maxmemory-policy')) as string[];
  const policy = reply[1] ?? 'unknown';
  if (policy !== 'noeviction') throw new RedisPolicyError(url, policy);
}

/**
 * Deletes every key under `<prefix>:` (a run's queues, its budget and locks), a page of 500
 * at a time: what a demo or a screenshot run leaves in a shared Redis when it stops.
 */
export async function deletePrefixedKeys(url: string, prefix: string): Promise<void> {
  const redis = createRedisConnection(url, 'worker');
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}
