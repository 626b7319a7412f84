import { Redis } from 'ioredis';
import { hidePasswordInUrl, type RedisEvictionCheck } from '../config/index.ts';

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

/**
 * Raised at start-up when Redis answered but refused `CONFIG GET maxmemory-policy`, as managed
 * Redis does (ElastiCache, Memorystore, Azure Cache; or an ACL user without `config`): the
 * server is reachable, only its eviction policy cannot be checked. `what` and `fix` are the
 * words start and doctor share.
 */
export class RedisConfigRefusedError extends Error {
  override readonly name = 'RedisConfigRefusedError';
  readonly what: string;
  readonly fix: string;
  constructor(
    readonly redisUrl: string,
    /** Redis's own error reply, such as `ERR unknown command 'CONFIG'` or a NOPERM. */
    readonly reply: string,
  ) {
    const what = `Redis at ${hidePasswordInUrl(redisUrl)} answered but refused CONFIG GET maxmemory-policy (${reply}), so its eviction policy cannot be checked`;
    const fix =
      "set maxmemory-policy noeviction in the provider's parameter group or console, then set PAYSYNC_REDIS_EVICTION_CHECK=skip to start without the check (docs/operations.md)";
    super(`${what} → ${fix}`);
    this.what = what;
    this.fix = fix;
  }
}

/** What Redis said about its eviction policy: the policy, or the error reply it gave instead. */
export type EvictionPolicyReading =
  | { readonly kind: 'policy'; readonly policy: string }
  | { readonly kind: 'refused'; readonly reply: string };

/**
 * Asks Redis for its `maxmemory-policy`. An error reply (the server answered: CONFIG renamed
 * away, or an ACL without it) is a reading of its own; a connection error is thrown, because
 * that Redis cannot be reached at all.
 */
export async function readEvictionPolicy(redis: Redis): Promise<EvictionPolicyReading> {
  try {
    const reply = (await redis.config('GET', 'maxmemory-policy')) as string[];
    return { kind: 'policy', policy: reply[1] ?? 'unknown' };
  } catch (error) {
    if (error instanceof Error && error.name === 'ReplyError') {
      return { kind: 'refused', reply: (error.message.split('\n')[0] ?? '').trim() };
    }
    throw error;
  }
}

/**
 * Refuses to go on when Redis may evict keys (and so jobs), or when it will not say and the
 * operator has not accepted that (`check` is `require`). Returns the refusal that `skip`
 * accepted, for the caller to log, or undefined when the policy is noeviction.
 */
export async function assertRedisNoEviction(
  redis: Redis,
  url: string,
  check: RedisEvictionCheck = 'require',
): Promise<RedisConfigRefusedError | undefined> {
  const reading = await readEvictionPolicy(redis);
  if (reading.kind === 'refused') {
    const refused = new RedisConfigRefusedError(url, reading.reply);
    if (check === 'require') throw refused;
    return refused;
  }
  if (reading.policy !== 'noeviction') throw new RedisPolicyError(url, reading.policy);
  return undefined;
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
