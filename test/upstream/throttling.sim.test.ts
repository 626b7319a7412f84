import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { createUpstreamClient, clientOptionsFromConfig } from '../../src/upstream/index.ts';
import { TEST_REDIS_URL, deleteRedisPrefix, uniqueRedisPrefix } from '../support/test-redis.ts';
import { startSimulator, type RunningSimulator } from './support/sim-fixture.ts';

const SIM_RPS = 20;
const BURST = 200;

let redisA: Redis;
let redisB: Redis;
let sim: RunningSimulator;
const prefixes: string[] = [];

beforeAll(async () => {
  redisA = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  redisB = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  await Promise.all([redisA.ping(), redisB.ping()]);
});
afterEach(async () => {
  await sim?.stop();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteRedisPrefix(prefix);
  redisA.disconnect();
  redisB.disconnect();
});

/** Two "processes" of one deployment: separate clients and Redis connections, one budget. */
function deployment(rps: number) {
  const rateLimitKey = uniqueRedisPrefix('upstream-rps');
  prefixes.push(rateLimitKey);
  const config = loadConfig({
    PAYSYNC_UPSTREAM_URL: sim.url,
    PAYSYNC_API_KEY: sim.credentials.apiKey,
    PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
    PAYSYNC_UPSTREAM_RPS: String(rps),
    PAYSYNC_UPSTREAM_MAX_RETRIES: '10',
  });
  return [redisA, redisB].map((redis) =>
    createUpstreamClient({
      ...clientOptionsFromConfig(config, () => new Date(), redis),
      rateLimitKey,
    }),
  );
}

async function burst(clients: ReturnType<typeof deployment>) {
  const calls = Array.from({ length: BURST }, (_, index) =>
    clients[index % clients.length]!.listTransfers({ perPage: 5 }),
  );
  const results = await Promise.allSettled(calls);
  return {
    succeeded: results.filter((r) => r.status === 'fulfilled').length,
    throttled: clients.reduce((sum, client) => sum + client.stats().throttled, 0),
    retries: clients.reduce((sum, client) => sum + client.stats().retries, 0),
  };
}

describe('request-rate limit shared through Redis', () => {
  it(`${BURST} reads at PAYSYNC_UPSTREAM_RPS=15 over two processes get no 429 from a service throttling at ${SIM_RPS}/s`, async () => {
    sim = await startSimulator({ port: 0, rps: SIM_RPS });
    const outcome = await burst(deployment(15));
    expect(outcome).toEqual({ succeeded: BURST, throttled: 0, retries: 0 });
  }, 40_000);

  it(`the same burst at PAYSYNC_UPSTREAM_RPS=100 is throttled, retried, and all ${BURST} succeed`, async () => {
    sim = await startSimulator({ port: 0, rps: SIM_RPS });
    const outcome = await burst(deployment(100));
    expect(outcome.succeeded).toBe(BURST);
    expect(outcome.throttled).toBeGreaterThan(0);
    expect(outcome.retries).toBe(outcome.throttled);
  }, 60_000);
});
