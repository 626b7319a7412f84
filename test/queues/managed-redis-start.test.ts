import { afterEach, describe, expect, it } from 'vitest';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { startWorkerProcess } from '../processing/support/worker-process.ts';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.ts';
import { closedPort, runCli, startPaysync } from '../support/run-cli.ts';
import { until } from '../support/until.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';

/**
 * Issue 42.2: managed Redis (ElastiCache, Memorystore, Azure Cache) answers but refuses CONFIG.
 * Start says so, not "cannot reach Redis", and `PAYSYNC_REDIS_EVICTION_CHECK=skip` lets it start.
 */
let fixture: DaemonFixture | undefined;
let redis: PrivateRedis | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
  await redis?.stop();
  await database?.cleanup();
  redis = undefined;
  database = undefined;
});

/** CONFIG renamed away, as ElastiCache and Memorystore have it. */
const WITHOUT_CONFIG = ['--rename-command', 'CONFIG', ''];
/** An ACL user allowed everything but CONFIG. */
const USER_WITHOUT_CONFIG = [
  '--user',
  'paysync',
  'on',
  '>secret-pw',
  '~*',
  '&*',
  '+@all',
  '-config',
];

async function workEnv(url: string): Promise<Record<string, string>> {
  database = await freshDatabase();
  return {
    PAYSYNC_DATABASE_URL: database.url,
    PAYSYNC_REDIS_URL: url,
    PAYSYNC_UPSTREAM_URL: 'http://127.0.0.1:9',
    PAYSYNC_API_KEY: 'sk_test_managed_0000',
    PAYSYNC_MERCHANT_ID: 'm_managed',
    // Its own queues: nothing of other tests' is taken on.
    PAYSYNC_QUEUE_PREFIX: `managed-${process.pid}-${Date.now()}`,
  };
}

/**
 * Runs `paysync <command>` until its receiver answers /healthz 200, stops it with SIGTERM, and
 * returns everything it wrote once it exited 0.
 */
async function serveUntilHealthy(command: string, env: Record<string, string>): Promise<string> {
  const started = await startPaysync(command, env);
  const health = await until(
    () => fetch(`http://127.0.0.1:${started.port}/healthz`).catch(() => undefined),
    { message: `/healthz on port ${started.port}` },
  ).catch(() => undefined);
  started.child.kill('SIGTERM');
  expect(await started.exited, started.output()).toBe(0);
  expect(health?.status, started.output()).toBe(200);
  return started.output();
}

describe('paysync work, start and serve on a Redis that refuses CONFIG', () => {
  it('refuses in one line naming what happened and what to do, not "cannot reach"', async () => {
    redis = await startPrivateRedis(WITHOUT_CONFIG);
    const result = await runCli(['work'], { env: await workEnv(redis.url) });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^paysync work: Redis at redis:\/\/127\.0\.0\.1:\d+ answered but refused CONFIG GET maxmemory-policy \(ERR unknown command 'config', with args beginning with: 'GET' 'maxmemory-policy'\), so its eviction policy cannot be checked → set maxmemory-policy noeviction in the provider's parameter group or console, then set PAYSYNC_REDIS_EVICTION_CHECK=skip/,
    );
    expect(result.stderr).not.toContain('cannot reach');
  }, 60_000);

  it('refuses an ACL user without CONFIG the same way, quoting the NOPERM', async () => {
    redis = await startPrivateRedis(USER_WITHOUT_CONFIG);
    const url = redis.url.replace('redis://', 'redis://paysync:secret-pw@');
    const result = await runCli(['work'], { env: await workEnv(url) });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^paysync work: Redis at redis:\/\/paysync:\*\*\*@127\.0\.0\.1:\d+ answered but refused CONFIG GET maxmemory-policy \(NOPERM .*\), so its eviction policy cannot be checked → /,
    );
    expect(result.stderr).not.toContain('secret-pw');
  }, 60_000);

  it('with PAYSYNC_REDIS_EVICTION_CHECK=skip starts, with one warning line, and stops on SIGTERM', async () => {
    redis = await startPrivateRedis(WITHOUT_CONFIG);
    const metricsPort = await closedPort();
    const worker = await startWorkerProcess({
      ...(await workEnv(redis.url)),
      PAYSYNC_METRICS_PORT: String(metricsPort),
      PAYSYNC_REDIS_EVICTION_CHECK: 'skip',
    });
    // Signal handlers are in place once it answers.
    await until(() => fetch(`http://127.0.0.1:${metricsPort}/healthz`).catch(() => undefined), {
      message: `/healthz on port ${metricsPort}`,
    });
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.output()).toBe(0);
    const warnings = worker
      .output()
      .split('\n')
      .filter((line) => line.includes('refused CONFIG GET maxmemory-policy'));
    expect(warnings, worker.output()).toHaveLength(1);
    expect(warnings[0]).toContain('"level":40');
    expect(warnings[0]).toContain(
      'starting anyway because PAYSYNC_REDIS_EVICTION_CHECK=skip: make sure maxmemory-policy is noeviction',
    );
  }, 60_000);

  it('with the setting still refuses a Redis that reports an evicting policy', async () => {
    redis = await startPrivateRedis(['--maxmemory-policy', 'allkeys-lru']);
    const result = await runCli(['work'], {
      env: { ...(await workEnv(redis.url)), PAYSYNC_REDIS_EVICTION_CHECK: 'skip' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^paysync work: Redis at .* has maxmemory-policy allkeys-lru; /);
  }, 60_000);

  it('refuses a value other than require or skip, naming the variable', async () => {
    const result = await runCli(['work'], {
      env: { PAYSYNC_REDIS_EVICTION_CHECK: 'off' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /PAYSYNC_REDIS_EVICTION_CHECK="off" is invalid: must be one of: require, skip/,
    );
  }, 30_000);

  it('paysync start refuses the same way, and with the setting serves with one warning line', async () => {
    redis = await startPrivateRedis(WITHOUT_CONFIG);
    fixture = await createDaemonFixture({ redisUrl: redis.url });
    const refused = await runCli(['start'], { env: fixture.env });
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /^paysync start: Redis at .* answered but refused CONFIG GET maxmemory-policy .*, so its eviction policy cannot be checked → .*PAYSYNC_REDIS_EVICTION_CHECK=skip/,
    );

    const output = await serveUntilHealthy('start', {
      ...fixture.env,
      PAYSYNC_REDIS_EVICTION_CHECK: 'skip',
    });
    // Two connections (the workers' and the receiver's), one warning.
    const warnings = output
      .split('\n')
      .filter((line) => line.includes('refused CONFIG GET maxmemory-policy'));
    expect(warnings, output).toHaveLength(1);
    expect(warnings[0]).toContain('starting anyway because PAYSYNC_REDIS_EVICTION_CHECK=skip');
  }, 90_000);

  it('paysync serve with the setting serves, with one warning line', async () => {
    redis = await startPrivateRedis(WITHOUT_CONFIG);
    fixture = await createDaemonFixture({ redisUrl: redis.url });
    const output = await serveUntilHealthy('serve', {
      ...fixture.env,
      PAYSYNC_REDIS_EVICTION_CHECK: 'skip',
    });
    const warnings = output
      .split('\n')
      .filter((line) => line.includes('refused CONFIG GET maxmemory-policy'));
    expect(warnings, output).toHaveLength(1);
    expect(warnings[0]).toContain('"level":40');
  }, 90_000);
});
