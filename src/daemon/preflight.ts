import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { hidePasswordInUrl, type Config } from '../config/index.ts';
import {
  createDatabase,
  DatabaseOpenError,
  isPermissionDenied,
  migrationStatus,
  pendingMigrationsHint,
  POSTGRES_RIGHTS_DOC,
  type DatabaseHandle,
  type DatabaseOptions,
} from '../db/index.ts';
import { reasonOf } from '../error-reason.ts';
import { probeInboxWrite } from '../inbox/index.ts';
import {
  assertRedisNoEviction,
  createRedisConnection,
  RedisConfigRefusedError,
  RedisPolicyError,
} from '../queues/index.ts';
import type { Logger } from '../logger.ts';
import { StartupError } from '../lifecycle/index.ts';

/**
 * Opens the database and refuses, in one line, one that does not answer, has migrations
 * pending (a worker must never write to a schema it was not built for) or cannot be written
 * (a receiver on it would answer 503 to every webhook).
 */
export async function openMigratedDatabase(
  config: Config,
  options: DatabaseOptions = {},
): Promise<DatabaseHandle> {
  let handle: DatabaseHandle;
  try {
    handle = createDatabase(config.databaseUrl, options);
  } catch (error) {
    if (!(error instanceof DatabaseOpenError)) throw error;
    throw new StartupError(
      `cannot use ${error.displayUrl}: ${error.reason} → set PAYSYNC_DATABASE_URL to a database file paysync can open`,
    );
  }
  try {
    const { pending } = await migrationStatus(handle.db);
    if (pending.length > 0) {
      // A least-privilege runtime role may not migrate: the hint says who must.
      throw new StartupError(
        `${handle.displayUrl} has ${pending.length} migration(s) pending (${pending.join(', ')}) → ${await pendingMigrationsHint(handle.db)}`,
      );
    }
    try {
      await probeInboxWrite(handle.db);
    } catch (error) {
      throw new StartupError(
        isPermissionDenied(error)
          ? `cannot write to ${handle.displayUrl} (${reasonOf(error)}) → grant this role its rights on paysync's tables (${POSTGRES_RIGHTS_DOC})`
          : `cannot write to ${handle.displayUrl} (${reasonOf(error)}) → make the database writable (for SQLite the file and its folder), or set PAYSYNC_DATABASE_URL to a writable one`,
      );
    }
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    if (error instanceof StartupError) throw error;
    if (isPermissionDenied(error)) {
      throw new StartupError(
        `cannot use ${handle.displayUrl}: ${reasonOf(error)} → grant this role its rights on paysync's schema and tables (${POSTGRES_RIGHTS_DOC})`,
      );
    }
    throw new StartupError(
      `cannot use ${handle.displayUrl}: ${reasonOf(error)} → check PAYSYNC_DATABASE_URL and that the database is running`,
    );
  }
}

/**
 * Connects to Redis, waits until it answers, and refuses one whose maxmemory-policy is not
 * noeviction: under any other policy Redis may silently drop queued jobs. A Redis that refuses
 * CONFIG (managed Redis) is refused too, unless `PAYSYNC_REDIS_EVICTION_CHECK=skip`: then
 * `options.logger` gets one warning (a caller leaves it out where the same server's warning
 * was just logged, or in a one-shot command).
 */
export async function openCheckedRedis(
  config: Config,
  role: 'worker' | 'producer',
  options: { readonly logger?: Pick<Logger, 'warn'>; readonly timeoutMs?: number } = {},
): Promise<Redis> {
  const { logger, timeoutMs = 3000 } = options;
  const redis = createRedisConnection(config.redisUrl, role);
  let lastError: unknown;
  redis.on('error', (error) => {
    lastError = error;
  });
  try {
    if (redis.status !== 'ready') {
      await Promise.race([
        once(redis, 'ready'),
        new Promise((_, reject) =>
          setTimeout(
            () => reject(lastError ?? new Error(`no answer within ${timeoutMs} ms`)),
            timeoutMs,
          ).unref(),
        ),
      ]);
    }
    const accepted = await assertRedisNoEviction(redis, config.redisUrl, config.redisEvictionCheck);
    if (accepted) {
      logger?.warn(
        `${accepted.what}; starting anyway because PAYSYNC_REDIS_EVICTION_CHECK=skip: make sure maxmemory-policy is noeviction in the provider's settings, or Redis may evict queued jobs`,
      );
    }
    return redis;
  } catch (error) {
    redis.disconnect();
    if (error instanceof RedisPolicyError || error instanceof RedisConfigRefusedError) {
      throw new StartupError(error.message);
    }
    throw new StartupError(
      `cannot reach Redis at ${hidePasswordInUrl(config.redisUrl)} (${reasonOf(lastError ?? error)}) → start Redis, or set PAYSYNC_REDIS_URL to where it runs`,
    );
  }
}
