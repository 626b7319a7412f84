import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.PAYSYNC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix no other test uses; pass it to BullMQ's `prefix` or prepend it to keys. */
export function uniqueRedisPrefix(label = 'test'): string {
  return `paysync-test:${label}:${randomBytes(5).toString('hex')}`;
}

/** Deletes every key under `prefix`, so a test leaves Redis as it found it. */
export async function deleteRedisPrefix(prefix: string, url = TEST_REDIS_URL): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
  return deleted;
}
