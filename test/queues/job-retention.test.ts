import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  createQueues,
  QUEUE_KEYS,
  createRedisConnection,
  enqueueScheduledTick,
  KEEP_COMPLETED_JOBS,
  KEEP_FAILED_JOBS,
  KEEP_QUEUE_EVENTS,
  type Queues,
} from '../../src/queues/index.ts';
import { until } from '../support/until.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';

/**
 * Redis stays bounded however long the daemon runs: completed jobs are kept by count, not by
 * age. Before, a scheduled tick and a follow-up hand-out were kept a day, so Redis grew with
 * every settled item. Real Redis, real BullMQ workers.
 */
const MORE_THAN_KEPT = KEEP_COMPLETED_JOBS + 300;

let redis: Redis;
let queues: Queues;
let prefix: string;
const workers: Worker[] = [];
const connections: Redis[] = [];

function drain(queue: Queue, fail = false): Worker {
  const connection = createRedisConnection(TEST_REDIS_URL, 'worker');
  connections.push(connection);
  const worker = new Worker(
    queue.name,
    async () => {
      if (fail) throw new Error('refused on purpose');
      return 'done';
    },
    { connection, prefix, concurrency: 100 },
  );
  workers.push(worker);
  return worker;
}

async function settled(queue: Queue): Promise<void> {
  await until(
    async () => {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).every((count) => count === 0);
    },
    { message: `${queue.name}: every job finished`, timeoutMs: 60_000 },
  );
}

beforeAll(async () => {
  prefix = uniqueRedisPrefix('retention');
  redis = createRedisConnection(TEST_REDIS_URL, 'worker');
  queues = createQueues({ connection: redis, prefix });
  await queues.waitUntilReady();
});

afterAll(async () => {
  await Promise.allSettled(workers.map((worker) => worker.close()));
  await Promise.allSettled(connections.map((connection) => connection.quit()));
  await queues.close();
  await redis.quit();
  await deleteRedisPrefix(prefix);
});

describe('finished jobs in Redis', () => {
  it(`keeps at most ${KEEP_COMPLETED_JOBS} completed scheduled ticks, whatever their age`, async () => {
    const start = Date.parse('2030-01-01T00:00:00.000Z');
    for (let i = 0; i < MORE_THAN_KEPT; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, MORE_THAN_KEPT - i) }, (_, j) =>
          enqueueScheduledTick(queues, 'janitor', {
            task: 'janitor',
            slot: new Date(start + (i + j) * 60_000).toISOString(),
          }),
        ),
      );
    }
    drain(queues.scheduled);
    await settled(queues.scheduled);
    const { completed } = await queues.scheduled.getJobCounts('completed');
    expect(completed).toBeGreaterThan(0);
    expect(completed).toBeLessThanOrEqual(KEEP_COMPLETED_JOBS);
  }, 90_000);

  it(`keeps at most ${KEEP_COMPLETED_JOBS} completed follow-up jobs`, async () => {
    await queues.followUp.addBulk(
      Array.from({ length: MORE_THAN_KEPT }, (_, i) => ({
        name: 'receipt',
        data: {
          type: 'receipt',
          kind: 'transfer',
          id: `tr_${i}`,
          status: 'successful',
          outboxId: i + 1,
        },
        opts: { jobId: `outbox-${i + 1}` },
      })) as Parameters<typeof queues.followUp.addBulk>[0],
    );
    drain(queues.followUp);
    await settled(queues.followUp);
    const { completed } = await queues.followUp.getJobCounts('completed');
    expect(completed).toBeGreaterThan(0);
    expect(completed).toBeLessThanOrEqual(KEEP_COMPLETED_JOBS);
  }, 90_000);

  it(`keeps about ${KEEP_QUEUE_EVENTS} entries of a queue's event stream`, async () => {
    // Each job above wrote several events (added, waiting, active, completed, removed); BullMQ
    // trims the stream approximately (whole nodes of 100 entries), so allow one node over.
    const events = await redis.xlen(`${prefix}:${queues.followUp.name}:events`);
    expect(events).toBeGreaterThan(KEEP_QUEUE_EVENTS / 2);
    expect(events).toBeLessThanOrEqual(KEEP_QUEUE_EVENTS + 100);
  });

  it('keeps failed jobs a week, capped by count, on every queue', async () => {
    for (const queue of QUEUE_KEYS.map((key) => queues[key])) {
      const job = await (queue as Queue).add('refused', {}, { attempts: 1 });
      expect(job.opts.removeOnFail).toEqual({ age: 7 * 24 * 3600, count: KEEP_FAILED_JOBS.count });
    }
    drain(queues.ingest, true);
    await settled(queues.ingest);
    expect((await queues.ingest.getJobCounts('failed')).failed).toBe(1);
  }, 30_000);
});
