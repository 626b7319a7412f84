import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, secretValues } from '../../src/config/index.ts';
import { startLoneSentinel } from '../support/private-sentinel.ts';
import { closedPort } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

/**
 * Issue 42.1: a `redis+sentinel://` PAYSYNC_REDIS_URL that cannot be used is one line naming
 * the variable (its password hidden); doctor says what each sentinel answered. The failover
 * itself: redis-sentinel-failover.db.test.ts.
 */
let sentinel: Awaited<ReturnType<typeof startLoneSentinel>>;
beforeAll(async () => {
  sentinel = await startLoneSentinel();
});
afterAll(async () => {
  await sentinel?.stop();
});

describe('PAYSYNC_REDIS_URL=redis+sentinel://…', () => {
  it('without a master name: one line naming the variable, the password hidden, exit 2', async () => {
    const result = await runCliInProcess(['work'], {
      env: { PAYSYNC_REDIS_URL: 'redis+sentinel://:s3cret-pw@127.0.0.1:26379,127.0.0.1:26380' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^paysync work: PAYSYNC_REDIS_URL="redis\+sentinel:\/\/:\*\*\*@127\.0\.0\.1:26379,127\.0\.0\.1:26380" is invalid: names no master: add the name the sentinels monitor it under .*, for example redis\+sentinel:\/\/10\.0\.0\.1:26379,10\.0\.0\.2:26379\/mymaster$/m,
    );
    expect(result.stderr + result.stdout).not.toContain('s3cret-pw');
  });

  it('with a sentinel port out of range: one line naming that sentinel', async () => {
    const result = await runCliInProcess(['work'], {
      env: { PAYSYNC_REDIS_URL: 'redis+sentinel://127.0.0.1:26379,10.0.0.2:0/mymaster' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(
      'PAYSYNC_REDIS_URL="redis+sentinel://127.0.0.1:26379,10.0.0.2:0/mymaster" is invalid: has sentinel "10.0.0.2:0" whose port is not 1 to 65535',
    );
  });

  it("the master's password is a secret the logs are scrubbed of, as written and decoded", () => {
    const config = loadConfig({
      PAYSYNC_REDIS_URL: 'redis+sentinel://paysync:p%40ss-w0rd@10.0.0.1,10.0.0.2:26380/main/2',
    });
    expect(secretValues(config)).toEqual(expect.arrayContaining(['p%40ss-w0rd', 'p@ss-w0rd']));
  });

  it('doctor says what each sentinel answered when none names the master', async () => {
    const down = await closedPort();
    const url = `redis+sentinel://127.0.0.1:${down},127.0.0.1:${sentinel.port}/nope`;
    const result = await runCliInProcess(['doctor'], { env: { PAYSYNC_REDIS_URL: url } });
    expect(result.code).toBe(1);
    const line = result.stdout.split('\n').find((text) => /^✖ redis /.test(text));
    expect(line, result.stdout).toBe(
      `✖ redis    no sentinel of ${url} gave the address of master nope: 127.0.0.1:${down} (connect ECONNREFUSED 127.0.0.1:${down}); 127.0.0.1:${sentinel.port} knows no master named nope → start the sentinels, or correct the sentinels or the master name in PAYSYNC_REDIS_URL (\`redis-cli -p 26379 SENTINEL MASTERS\` lists the names a sentinel monitors)`,
    );
  });
});
