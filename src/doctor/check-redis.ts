import {
  hidePasswordInUrl,
  isSentinelUrl,
  readSentinelUrl,
  type RedisEvictionCheck,
} from '../config/index.ts';
import {
  askSentinels,
  connectedAddress,
  createRedisConnection,
  readEvictionPolicy,
  RedisConfigRefusedError,
  type EvictionPolicyReading,
} from '../queues/index.ts';
import { failed, passed, warned, type CheckResult } from './check-result.ts';
import { reasonOf } from '../error-reason.ts';

const MIN_VERSION = [6, 2] as const;

function versionAtLeast(version: string, min: readonly [number, number]): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > min[0] || (major === min[0] && minor >= min[1]);
}

/**
 * Redis answers, is new enough for BullMQ, and never evicts keys: with any other
 * `maxmemory-policy` Redis may silently drop queued jobs under memory pressure. A Redis that
 * answers but refuses CONFIG (managed Redis) is a warning, in start's words, with what start
 * will do under `evictionCheck` (`PAYSYNC_REDIS_EVICTION_CHECK`). Behind sentinels
 * (`redis+sentinel://`), the sentinels are asked in order for the master, as the daemon's
 * connections ask them, and the line says which master was reached through which sentinel;
 * the checks run against that master.
 */
export async function checkRedis(
  redisUrl: string,
  timeoutMs = 2000,
  evictionCheck: RedisEvictionCheck = 'require',
): Promise<CheckResult> {
  let shown = hidePasswordInUrl(redisUrl);
  let viaSentinel: { readonly sentinel: string; readonly master: string } | undefined;
  if (isSentinelUrl(redisUrl)) {
    const { target, problem } = readSentinelUrl(redisUrl);
    if (!target)
      return failed('redis', `PAYSYNC_REDIS_URL ${problem}`, 'correct PAYSYNC_REDIS_URL');
    const answer = await askSentinels(target, timeoutMs);
    if (answer.kind === 'none') {
      return failed(
        'redis',
        `no sentinel of ${shown} gave the address of master ${target.masterName}: ${answer.reasons.join('; ')}`,
        'start the sentinels, or correct the sentinels or the master name in PAYSYNC_REDIS_URL (`redis-cli -p 26379 SENTINEL MASTERS` lists the names a sentinel monitors)',
      );
    }
    viaSentinel = answer;
  }
  const redis = createRedisConnection(redisUrl, 'probe', { timeoutMs });
  // ioredis reports the real cause (ECONNREFUSED, ENOTFOUND…) as an event, and rejects
  // connect() with a vaguer "Connection is closed"; keep the cause for the operator.
  let lastError: unknown;
  redis.on('error', (error) => {
    lastError = error;
  });
  try {
    await redis.connect();
    if (viaSentinel) {
      const master = connectedAddress(redis) ?? viaSentinel.master;
      shown = `${shown} (master ${master} via sentinel ${viaSentinel.sentinel})`;
    }
    const info = await redis.info('server');
    const version = /redis_version:([\d.]+)/.exec(info)?.[1] ?? 'unknown';
    if (!versionAtLeast(version, MIN_VERSION)) {
      return failed('redis', `${shown} runs Redis ${version}`, 'upgrade to Redis 6.2 or newer');
    }
    let reading: EvictionPolicyReading;
    try {
      reading = await readEvictionPolicy(redis);
    } catch (error) {
      return failed(
        'redis',
        `${shown}: cannot read maxmemory-policy (${reasonOf(error)})`,
        'make sure the server runs with maxmemory-policy noeviction',
      );
    }
    if (reading.kind === 'refused') {
      // Managed Redis: reachable, only its policy is out of sight. Start refuses it unless told.
      const refused = new RedisConfigRefusedError(redisUrl, reading.reply);
      return warned(
        'redis',
        refused.what,
        evictionCheck === 'skip'
          ? "PAYSYNC_REDIS_EVICTION_CHECK=skip: paysync starts without the check; make sure maxmemory-policy is noeviction in the provider's parameter group or console"
          : `${refused.fix}; until then start refuses`,
      );
    }
    const { policy } = reading;
    if (policy !== 'noeviction') {
      return failed(
        'redis',
        `${shown}: maxmemory-policy is ${policy}, so Redis may evict queued jobs`,
        'run `redis-cli CONFIG SET maxmemory-policy noeviction` and set it in redis.conf',
      );
    }
    return passed('redis', `${shown}, Redis ${version}, maxmemory-policy noeviction`);
  } catch (error) {
    return failed(
      'redis',
      `cannot connect to ${shown} (${reasonOf(lastError ?? error)})`,
      'start Redis, or set PAYSYNC_REDIS_URL to where it runs',
    );
  } finally {
    redis.disconnect();
  }
}
