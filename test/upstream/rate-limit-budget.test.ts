import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import {
  BUDGET_POINTS_PER_REQUEST,
  clientOptionsFromConfig,
  createRequestRateLimiter,
  createUpstreamClient,
} from '../../src/upstream/index.ts';
import { closedPort } from '../support/run-cli.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { until } from '../support/until.ts';

const RPS = 4;
let redisA: Redis;
let redisB: Redis;
const prefixes: string[] = [];

beforeAll(async () => {
  redisA = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  redisB = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  await Promise.all([redisA.ping(), redisB.ping()]);
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteRedisPrefix(prefix);
  redisA.disconnect();
  redisB.disconnect();
});

interface Deployment {
  readonly merchantId: string;
  readonly environment: 'live' | 'sandbox';
  readonly queuePrefix: string;
}

/**
 * How long the second deployment waits for one request after the first spent its whole
 * one-second budget. Each deployment is a separate process: its own limiter and connection.
 */
async function waitAfterOtherSpentItsBudget(first: Deployment, second: Deployment) {
  const limiterOf = (deployment: Deployment, redis: Redis) =>
    createRequestRateLimiter({
      rps: RPS,
      redis,
      key: `${deployment.queuePrefix}:upstream:rps`,
      merchantId: deployment.merchantId,
      environment: deployment.environment,
    });
  const a = limiterOf(first, redisA);
  const b = limiterOf(second, redisB);
  const spentFrom = Date.now();
  // The first spends its whole budget for this second (the acquires resolve spread over the
  // second, execEvenly, but count at once): wait until Redis counts them, not for a fixed time.
  const spending = Array.from({ length: RPS }, () => a.acquire());
  await until(() => pointsCounted(redisA, first.queuePrefix), {
    // A request at the ceiling costs BUDGET_POINTS_PER_REQUEST points of the shared window.
    accept: (points) => points >= RPS * BUDGET_POINTS_PER_REQUEST,
    message: `${RPS} requests counted in Redis`,
    intervalMs: 5,
  });
  const started = Date.now();
  await b.acquire();
  const acquiredAt = Date.now();
  await Promise.all(spending);
  return { waited: acquiredAt - started, sinceSpent: acquiredAt - spentFrom };
}

/** The points the limiters of one queue prefix have counted in Redis this second. */
async function pointsCounted(redis: Redis, queuePrefix: string): Promise<number> {
  const keys = await redis.keys(`*${queuePrefix}*`);
  const values = keys.length > 0 ? await redis.mget(...keys) : [];
  return values.reduce((sum, value) => sum + (Number(value) || 0), 0);
}

function prefix(): string {
  const value = uniqueRedisPrefix('rps-budget');
  prefixes.push(value);
  return value;
}

describe('7.C10: the rate-limit budget is per merchant, environment and queue prefix', () => {
  it('two merchants on one Redis and one queue prefix each get their own budget', async () => {
    const queuePrefix = prefix();
    const { waited } = await waitAfterOtherSpentItsBudget(
      { merchantId: 'merchant-a', environment: 'live', queuePrefix },
      { merchantId: 'merchant-b', environment: 'live', queuePrefix },
    );
    expect(waited).toBeLessThan(450);
  });

  it('live and sandbox of one merchant each get their own budget', async () => {
    const queuePrefix = prefix();
    const { waited } = await waitAfterOtherSpentItsBudget(
      { merchantId: 'merchant-a', environment: 'live', queuePrefix },
      { merchantId: 'merchant-a', environment: 'sandbox', queuePrefix },
    );
    expect(waited).toBeLessThan(450);
  });

  it('two processes of one deployment share one budget: the second waits for the next second', async () => {
    const queuePrefix = prefix();
    const deployment = { merchantId: 'merchant-a', environment: 'live', queuePrefix } as const;
    const { sinceSpent } = await waitAfterOtherSpentItsBudget(deployment, deployment);
    // Not within the second the first one spent: a bound a busy machine cannot break.
    expect(sinceSpent).toBeGreaterThanOrEqual(950);
  });

  it('the config keys the budget by PAYSYNC_QUEUE_PREFIX, PAYSYNC_ENVIRONMENT and PAYSYNC_MERCHANT_ID', async () => {
    const queuePrefix = prefix();
    const config = loadConfig({
      PAYSYNC_UPSTREAM_URL: `http://127.0.0.1:${await closedPort()}`,
      PAYSYNC_API_KEY: 'test-api-key',
      PAYSYNC_MERCHANT_ID: 'merchant:42',
      PAYSYNC_ENVIRONMENT: 'live',
      PAYSYNC_QUEUE_PREFIX: queuePrefix,
      PAYSYNC_UPSTREAM_MAX_RETRIES: '0',
    });
    const client = createUpstreamClient(clientOptionsFromConfig(config, () => new Date(), redisA));
    // The request fails (nothing listens), but it passed the limiter first.
    await client.listTransfers({ perPage: 1 }).catch(() => undefined);
    const keys = await redisA.keys(`${queuePrefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys)
      expect(key.startsWith(`${queuePrefix}:upstream:rps:live:merchant%3A42:`)).toBe(true);
  });
});

describe('issue 37: the shared budget is used whole', () => {
  it('8 concurrent callers of one process get the whole budget through Redis (the execEvenly window handed out 11 of 20 a second)', async () => {
    const queuePrefix = prefix();
    const budget = createRequestRateLimiter({
      rps: 20,
      redis: redisA,
      key: `${queuePrefix}:upstream:rps`,
      merchantId: 'merchant-a',
      environment: 'live',
    });
    let granted = 0;
    let running = true;
    const started = Date.now();
    const loops = Array.from({ length: 8 }, async () => {
      while (running) {
        await budget.acquire();
        if (running) granted += 1;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    running = false;
    const seconds = (Date.now() - started) / 1000;
    await Promise.all(loops);
    // Measured on a loaded 2-core machine: 20.0 a second; before, 11.0. With CI and other work
    // on both cores, late timers took it to 16.1 and 16.7. The bound leaves room for them, never
    // for the old loss.
    expect(granted / seconds).toBeGreaterThanOrEqual(15);
    expect(granted / seconds).toBeLessThanOrEqual(21);
  });
});

describe('issue 37: a 429 slows the deployment down together', () => {
  it("one process's 429 holds the other for its Retry-After and lowers both: together they hand out the lowered rate", async () => {
    const queuePrefix = prefix();
    const limiterOf = (redis: Redis) =>
      createRequestRateLimiter({
        rps: 10,
        redis,
        key: `${queuePrefix}:upstream:rps`,
        merchantId: 'merchant-a',
        environment: 'live',
      });
    // Two processes of one deployment, each with its own connection and limiter, both busy.
    const a = limiterOf(redisA);
    const b = limiterOf(redisB);
    const grants: { process: 'a' | 'b'; at: number }[] = [];
    let running = true;
    const busy = (limiter: typeof a, process: 'a' | 'b') =>
      Array.from({ length: 4 }, async () => {
        while (running) {
          await limiter.acquire();
          if (running) grants.push({ process, at: Date.now() });
        }
      });
    const loops = [...busy(a, 'a'), ...busy(b, 'b')];
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    // Process a meets a 429 with Retry-After: 1 s.
    a.throttled(1_000);
    const throttledAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // b heard it (it looks four times a second): its rate is down to 70 % of the ceiling.
    expect(b.currentRate()).toBeLessThanOrEqual(7.01);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    running = false;
    await Promise.all(loops);
    const after = (from: number, to: number, process?: 'a' | 'b') =>
      grants.filter(
        (grant) =>
          grant.at >= throttledAt + from &&
          grant.at < throttledAt + to &&
          (process === undefined || grant.process === process),
      ).length;
    // Held: b too hands out nothing while the Retry-After lasts (before, b went on at 10 a second).
    expect(after(400, 900, 'b')).toBe(0);
    expect(after(400, 900, 'a')).toBe(0);
    // Then both together at the lowered rate, climbing a step a second: about 7 + 8 in the two
    // seconds after the hold, where the shared window alone would have handed out 20.
    expect(after(1_000, 3_000)).toBeLessThanOrEqual(17);
    expect(after(1_000, 3_000)).toBeGreaterThanOrEqual(10);
  });
});
