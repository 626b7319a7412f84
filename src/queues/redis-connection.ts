import { Redis, type RedisOptions } from 'ioredis';
import {
  hidePasswordInUrl,
  isSentinelUrl,
  readSentinelUrl,
  type RedisEvictionCheck,
  type RedisSentinelTarget,
} from '../config/index.ts';
import { reasonOf } from '../error-reason.ts';

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
 * How a connection behaves:
 * - `worker`: BullMQ's connections. Workers block on Redis and must retry forever
 *   (`maxRetriesPerRequest: null`, as BullMQ requires).
 * - `producer`: the receiver's. It fails fast instead, so a Redis outage never holds a webhook
 *   response: the inbox row is already committed and the recovery sweep enqueues it later. It
 *   pipelines automatically: the commands of concurrent group commits issued in one turn of the
 *   event loop travel to Redis in one write.
 * - `probe`: one look (doctor, the demo): connects on `connect()`, never retries, gives up
 *   after `timeoutMs`.
 */
export type RedisRole = 'worker' | 'producer' | 'probe';

/**
 * In sentinel mode, a reply of READONLY means this connection still talks to the old master,
 * demoted to a replica by a failover: reconnect (asking the sentinels for the master again)
 * and send the command again (ioredis's `2`).
 */
function reconnectOnReadOnly(error: Error): 2 | false {
  // A script's write on a replica comes back wrapped (`ERR … -READONLY You can't write…`).
  return /\bREADONLY\b/.test(error.message) ? 2 : false;
}

/** The ioredis options that reach the master the sentinels of `target` name. */
function sentinelOptions(target: RedisSentinelTarget, role: RedisRole): RedisOptions {
  return {
    sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
    name: target.masterName,
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
    db: target.db,
    // Subscribe to the sentinels' +switch-master and reconnect at once, rather than writing
    // to the old master until it is demoted (and its writes since the promotion are lost).
    failoverDetector: role !== 'probe',
    reconnectOnError: reconnectOnReadOnly,
    ...(role === 'probe' ? { sentinelRetryStrategy: () => null } : {}),
  };
}

function roleOptions(role: RedisRole, timeoutMs: number): RedisOptions {
  switch (role) {
    case 'worker':
      return { maxRetriesPerRequest: null, enableReadyCheck: true };
    case 'producer':
      return {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        connectTimeout: 2000,
        commandTimeout: 2000,
        enableAutoPipelining: true,
      };
    case 'probe':
      return {
        lazyConnect: true,
        connectTimeout: timeoutMs,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        retryStrategy: () => null,
      };
  }
}

/**
 * Every connection paysync makes to Redis is made here, for `url` (`PAYSYNC_REDIS_URL`): one
 * Redis (`redis://`, `rediss://`), or the master that the sentinels of a `redis+sentinel://`
 * URL name, followed through a failover (docs/operations.md, "Redis Sentinel"). BullMQ's
 * duplicates of a connection keep its options, sentinels included.
 */
export function createRedisConnection(
  url: string,
  role: RedisRole,
  options: { readonly timeoutMs?: number } = {},
): Redis {
  const settings = roleOptions(role, options.timeoutMs ?? 2000);
  let redis: Redis;
  if (isSentinelUrl(url)) {
    const { target, problem } = readSentinelUrl(url);
    if (!target) throw new Error(`PAYSYNC_REDIS_URL ${problem}`);
    redis = new Redis({ ...settings, ...sentinelOptions(target, role) });
  } else {
    redis = new Redis(url, settings);
  }
  // Without a listener ioredis prints every reconnect failure; callers log what matters.
  redis.on('error', () => undefined);
  return redis;
}

/** The address (`host:port`) a connected client talks to: in sentinel mode, the master reached. */
export function connectedAddress(redis: Redis): string | undefined {
  const { remoteAddress, remotePort } = redis.stream ?? {};
  if (!remoteAddress || !remotePort) return undefined;
  return remoteAddress.includes(':')
    ? `[${remoteAddress}]:${remotePort}`
    : `${remoteAddress}:${remotePort}`;
}

/** What the sentinels of a `redis+sentinel://` URL say, asked in the URL's order. */
export type SentinelAnswer =
  | { readonly kind: 'master'; readonly sentinel: string; readonly master: string }
  | { readonly kind: 'none'; readonly reasons: readonly string[] };

function addressText(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Asks each sentinel in turn, as ioredis does, for the address of the master: the first that
 * names one is the sentinel the connection goes through. Otherwise, each sentinel's reason.
 */
export async function askSentinels(
  target: RedisSentinelTarget,
  timeoutMs = 2000,
): Promise<SentinelAnswer> {
  const reasons: string[] = [];
  for (const { host, port } of target.sentinels) {
    const sentinel = addressText(host, port);
    const client = createRedisConnection(`redis://${sentinel}`, 'probe', { timeoutMs });
    let lastError: unknown;
    client.on('error', (error) => {
      lastError = error;
    });
    try {
      await client.connect();
      const reply = (await client.call(
        'SENTINEL',
        'GET-MASTER-ADDR-BY-NAME',
        target.masterName,
      )) as [string, string] | null;
      if (Array.isArray(reply)) {
        return { kind: 'master', sentinel, master: addressText(reply[0], reply[1]) };
      }
      reasons.push(`${sentinel} knows no master named ${target.masterName}`);
    } catch (error) {
      const cause = lastError ?? error;
      reasons.push(`${sentinel} (${reasonOf(cause)})`);
    } finally {
      client.disconnect();
    }
  }
  return { kind: 'none', reasons };
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
