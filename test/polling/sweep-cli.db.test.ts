import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';

/** `paysync sweep`: one sweep in the foreground, its report, and an honest exit code. */
describe(`paysync sweep on ${testDialect()}`, () => {
  let sim: RunningSimulator;
  let database: TestDatabase;
  let env: Record<string, string>;
  const prefix = uniqueRedisPrefix('sweep-cli');

  beforeAll(async () => {
    sim = await startSimulator({ freezeClock: true, startAt: new Date(Date.now() - 3_600_000) });
    database = await freshDatabase();
    env = {
      PAYSYNC_UPSTREAM_URL: sim.url,
      PAYSYNC_API_KEY: sim.credentials.apiKey,
      PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
      PAYSYNC_DATABASE_URL: database.url,
      PAYSYNC_REDIS_URL: TEST_REDIS_URL,
      PAYSYNC_QUEUE_PREFIX: prefix,
      PAYSYNC_UPSTREAM_MAX_RETRIES: '0',
    };
    for (let i = 0; i < 3; i += 1) {
      sim.control.createTransfer({
        amount: 1000 + i,
        reference: `cli-${i}`,
        destination: { number: `+2217712345${i}811` },
      });
    }
  });
  afterAll(async () => {
    await sim?.stop();
    await database?.cleanup();
    await deleteRedisPrefix(prefix);
  });

  it('prints what it found per list and records a manual run', async () => {
    const result = await runCli(['sweep', '--since', '2h'], { env, timeoutMs: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^sweep: transfers .*: 3 seen, 3 new, 0 changed, 0 unchanged/m);
    expect(result.stdout).toMatch(/^sweep: intents .*: 0 seen/m);
    expect(result.stdout).toContain('sweep: succeeded; 3 item(s) changed');
    // The sweeps are real processes; reading the run back runs in this process (issue 39).
    const runs = await runCliInProcess(['runs', '--json'], { env });
    expect(JSON.parse(runs.stdout)).toMatchObject([
      { task: 'sweep', trigger: 'manual', outcome: 'succeeded', itemsSeen: 3 },
    ]);
  });

  it('cut short by a 429 storm, it says partial and exits 1', async () => {
    sim.control.setFaults({ throttleRate: 1, operations: ['listTransfers'] });
    const result = await runCli(['sweep', '--kind', 'transfers'], { env, timeoutMs: 60_000 });
    sim.control.setFaults({ throttleRate: 0, operations: [] });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^paysync sweep: partial: transfers: .*429.* → run it again later/);
  });
});
