import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkerPool } from '../../src/daemon/index.ts';
import { createLogger } from '../../src/logger.ts';
import { createQueues, createRedisConnection } from '../../src/queues/index.ts';
import { closedPort } from '../support/run-cli.ts';

/**
 * A receiver or daemon stopped while Redis is down must stop cleanly. BullMQ re-emits a failed
 * start-up of a queue's connection as an 'error' event; after `close()` has removed every
 * listener that emit throws inside a promise handler, so ending the connection a moment later
 * (while it retries) left one unhandled rejection, `connect ECONNREFUSED`, per queue: in
 * Node, a crash at shutdown, and in CI four "failed" tests under load.
 */
const rejections: unknown[] = [];
const record = (reason: unknown) => rejections.push(reason);

afterEach(() => {
  process.off('unhandledRejection', record);
  rejections.length = 0;
});

/**
 * Waits until the connection, refused once, is trying again; then closes what was built on it
 * and ends the connection, as a shutdown does; and returns the rejections nobody handled.
 */
async function closeMidRetry(redis: Redis, close: () => Promise<void>): Promise<string[]> {
  process.on('unhandledRejection', record);
  await new Promise((resolve) => redis.once('error', resolve));
  await new Promise((resolve) => redis.once('connecting', resolve));
  await close();
  redis.disconnect();
  await new Promise((resolve) => setTimeout(resolve, 300));
  return rejections.map(String);
}

describe('closing the queues and workers while Redis is down', () => {
  it('leaves no unhandled rejection when the queues close and the connection ends mid-retry', async () => {
    const redis = createRedisConnection(`redis://127.0.0.1:${await closedPort()}`, 'producer');
    const queues = createQueues({ connection: redis, prefix: 'close-while-down' });
    expect(await closeMidRetry(redis, () => queues.close())).toEqual([]);
  });

  it('leaves no unhandled rejection when a worker pool that never got Redis stops', async () => {
    const redis = createRedisConnection(`redis://127.0.0.1:${await closedPort()}`, 'worker');
    const pool = createWorkerPool({
      connection: redis,
      prefix: 'close-while-down',
      concurrency: 1,
      lockMs: 30_000,
      processors: {
        ingest: async () => undefined,
        sync: async () => undefined,
        followUp: async () => undefined,
        scheduled: async () => undefined,
      },
      logger: createLogger({ level: 'silent', pretty: false }),
    });
    // start() waits for Redis, which never answers; stop() is what a SIGTERM then does.
    void pool.start().catch(() => undefined);
    expect(await closeMidRetry(redis, () => pool.stop())).toEqual([]);
  });
});
