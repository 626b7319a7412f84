import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { recentRuns } from '../../src/runs/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { PAYSYNC_BIN } from '../support/run-cli.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';

/** `paysync schedule` as a real child process, resolved once its scheduler runs. */
async function startScheduler(env: Record<string, string>): Promise<ChildProcess> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('PAYSYNC_') && !key.startsWith('npm_') && key !== 'NODE_OPTIONS')
      clean[key] = value;
  }
  const child = spawn(process.execPath, [PAYSYNC_BIN, 'schedule'], {
    env: { ...clean, ...env, PAYSYNC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`scheduler did not start:\n${output}`)),
      30_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('scheduler running')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`scheduler exited (${code}):\n${output}`)));
  });
  return child;
}

/** Acceptance 6: two scheduler processes started together fire each slot of each task once. */
describe(`two schedulers on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await fixture?.cleanup();
  });

  it('fire each slot of each task once, as scheduled_runs shows', async () => {
    const crons = {
      PAYSYNC_RECOVERY_CRON: '* * * * * *',
      PAYSYNC_SWEEP_CRON: '*/2 * * * * *',
    };
    fixture = await createDaemonFixture({ env: crons });
    await fixture.startDaemon(['workers']);
    const env = { ...fixture.env, ...crons };
    children.push(...(await Promise.all([startScheduler(env), startScheduler(env)])));
    // Until both tasks ran a few slots (about six seconds; longer on a busy machine).
    await until(() => recentRuns(fixture.database.db, { limit: 1000 }), {
      accept: (runs) =>
        runs.filter((r) => r.task === 'recover-inbox').length >= 4 &&
        runs.filter((r) => r.task === 'sweep').length >= 2,
      message: 'four recovery runs and two sweeps',
      timeoutMs: 45_000,
    });
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((resolve) => c.once('exit', resolve))));
    children.splice(0);
    // Let the workers finish what was enqueued.
    const queue = fixture.daemon!.queues.scheduled;
    await until(() => queue.getJobCounts('waiting', 'active', 'delayed'), {
      accept: (counts) =>
        (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) === 0,
      message: 'the scheduled queue drained',
    });

    const runs = await recentRuns(fixture.database.db, { limit: 1000 });
    const perSlot = new Map<string, number>();
    for (const run of runs) {
      const key = `${run.task} ${run.slot}`;
      perSlot.set(key, (perSlot.get(key) ?? 0) + 1);
    }
    const recovery = runs.filter((r) => r.task === 'recover-inbox');
    const sweeps = runs.filter((r) => r.task === 'sweep');
    // About six seconds: a recovery slot every second, a sweep slot every two.
    expect(recovery.length).toBeGreaterThanOrEqual(4);
    expect(sweeps.length).toBeGreaterThanOrEqual(2);
    expect([...perSlot.values()].every((count) => count === 1)).toBe(true);
    expect(runs.every((r) => r.outcome === 'succeeded' && r.attempt === 1)).toBe(true);
    // Slots are whole seconds of their cron (every second; even seconds for the sweep).
    for (const run of sweeps) expect(new Date(run.slot).getUTCSeconds() % 2).toBe(0);
    // And no second job ran for any slot: the queue's completed jobs are exactly the runs.
    const completed = await queue.getJobs(['completed'], 0, 10_000);
    expect(completed.length).toBe(runs.length);
    expect(new Set(completed.map((job) => `${job.data.task} ${job.data.slot}`)).size).toBe(
      runs.length,
    );
  }, 90_000);
});
