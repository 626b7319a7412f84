import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/sim/index.ts';
import { closeCliBooks, openCliBooks } from '../support/cli-books.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.ts';
import { closedPort } from '../support/run-cli.ts';
import { testDialect, type TestDatabase } from '../support/test-database.ts';

/**
 * Issue 42.2: `paysync doctor` on a managed Redis that answers but refuses CONFIG warns that
 * the eviction policy cannot be checked, instead of failing with "cannot connect".
 */
let database: TestDatabase;
let sim: RunningSimulator;
let env: Record<string, string>;
let redis: PrivateRedis;
let aclRedis: PrivateRedis;

interface DoctorJson {
  ok: boolean;
  checks: { name: string; status: 'ok' | 'warn' | 'fail'; message: string; hint?: string }[];
}

beforeAll(async () => {
  // CONFIG renamed away, as ElastiCache and Memorystore have it; and an ACL user without it.
  redis = await startPrivateRedis(['--rename-command', 'CONFIG', '']);
  aclRedis = await startPrivateRedis([
    '--user',
    'paysync',
    'on',
    '>secret-pw',
    '~*',
    '&*',
    '+@all',
    '-config',
  ]);
  ({ database, sim, env } = await openCliBooks(
    { freezeClock: true },
    { PAYSYNC_REDIS_URL: redis.url },
  ));
});
afterAll(async () => {
  await closeCliBooks({ database, sim });
  await redis.stop();
  await aclRedis.stop();
});

const REFUSED =
  /^⚠ redis +Redis at redis:\/\/127\.0\.0\.1:\d+ answered but refused CONFIG GET maxmemory-policy \(ERR unknown command 'config', with args beginning with: 'GET' 'maxmemory-policy'\), so its eviction policy cannot be checked → /m;

describe(`paysync doctor on a Redis that refuses CONFIG, on ${testDialect()}`, () => {
  it('warns that the policy cannot be checked, says what to do, and exits 0', async () => {
    const result = await runCliInProcess(['doctor'], { env });
    expect(result.stdout).toMatch(REFUSED);
    expect(result.stdout).toMatch(
      /^⚠ redis .* → set maxmemory-policy noeviction in the provider's parameter group or console, then set PAYSYNC_REDIS_EVICTION_CHECK=skip to start without the check \(docs\/operations\.md\); until then start refuses$/m,
    );
    expect(result.stdout).not.toMatch(/cannot (connect|reach)/);
    expect(result.code, result.stdout).toBe(0);
  });

  it('with PAYSYNC_REDIS_EVICTION_CHECK=skip says start goes on without the check', async () => {
    const result = await runCliInProcess(['doctor'], {
      env: { ...env, PAYSYNC_REDIS_EVICTION_CHECK: 'skip' },
    });
    expect(result.stdout).toMatch(REFUSED);
    expect(result.stdout).toMatch(
      /^⚠ redis .* → PAYSYNC_REDIS_EVICTION_CHECK=skip: paysync starts without the check; make sure maxmemory-policy is noeviction in the provider's parameter group or console$/m,
    );
    expect(result.code, result.stdout).toBe(0);
  });

  it('--json gives the redis check status warn with the same words, for an ACL user too', async () => {
    const url = aclRedis.url.replace('redis://', 'redis://paysync:secret-pw@');
    const result = await runCliInProcess(['doctor', '--json'], {
      env: { ...env, PAYSYNC_REDIS_URL: url },
    });
    const report = JSON.parse(result.stdout) as DoctorJson;
    const check = report.checks.find((each) => each.name === 'redis');
    expect(check, result.stdout).toMatchObject({ status: 'warn' });
    expect(check!.message).toMatch(
      /^Redis at redis:\/\/paysync:\*\*\*@127\.0\.0\.1:\d+ answered but refused CONFIG GET maxmemory-policy \(NOPERM .*\), so its eviction policy cannot be checked$/,
    );
    expect(check!.hint).toMatch(/PAYSYNC_REDIS_EVICTION_CHECK=skip/);
    expect(result.stdout).not.toContain('secret-pw');
    expect(report.ok).toBe(true);
    expect(result.code).toBe(0);
  });

  it('still fails a Redis that cannot be reached, saying so', async () => {
    const result = await runCliInProcess(['doctor', '--json'], {
      env: { ...env, PAYSYNC_REDIS_URL: `redis://127.0.0.1:${await closedPort()}` },
    });
    const report = JSON.parse(result.stdout) as DoctorJson;
    expect(report.checks.find((each) => each.name === 'redis')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/^cannot connect to redis:\/\/127\.0\.0\.1:\d+ \(/) as unknown,
    });
    expect(result.code).toBe(1);
  });
});
