import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/test-database.ts';
import { createDaemonFixture, queueBacklog, type DaemonFixture } from './support/daemon-fixture.ts';
import { describeState, waitForCatchUp, type EndState } from './support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.ts';
import { until } from '../support/until.ts';

/**
 * Acceptance 2: the workers run as a separate `paysync work` process, which is killed with
 * SIGKILL while it holds jobs, then started again. Its jobs come back (their locks lapse and
 * BullMQ hands them out again) and the end state is the same as acceptance 1.
 */
describe(`a worker process killed with SIGKILL mid-run, on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  let state: EndState;
  const workers: WorkerProcess[] = [];
  let activeAtKill = -1;
  let killedBy: number | string | undefined;

  beforeAll(async () => {
    fixture = await createDaemonFixture({
      sim: { faults: { webhookDuplicateRate: 0.2, webhookReorderRate: 0.2, latencyMs: 5 } },
      env: {
        // A dead worker's jobs are handed out again after this long.
        PAYSYNC_JOB_LOCK_MS: '3000',
        PAYSYNC_RECOVERY_CRON: '*/2 * * * * *',
        PAYSYNC_RECOVERY_AFTER_SECONDS: '8',
        PAYSYNC_WORKER_CONCURRENCY: '8',
      },
    });
    // This process receives and schedules; the child process does all the work.
    await fixture.startDaemon(['receiver', 'scheduler']);
    await fixture.registerWebhook();
    workers.push(await startWorkerProcess(fixture.env));
    let killed = false;
    await generateMixedTraffic(fixture.sim, fixture.client, {
      transfers: 200,
      paymentIntents: 200,
      refunds: 70,
      paymentRefunds: 30,
      backlog: () => queueBacklog(fixture.daemon!),
      maxBacklog: 150,
      onBatch: async (created) => {
        if (killed || created < 150) return;
        killed = true;
        const victim = workers[0]!;
        // Kill it mid-job if one comes within a second; it dies regardless.
        await until(
          async () =>
            (activeAtKill = (await fixture.daemon!.queues.sync.getJobCounts('active')).active ?? 0),
          {
            accept: (active) => active > 0,
            message: 'a sync job active',
            timeoutMs: 1_000,
            intervalMs: 20,
          },
        ).catch(() => undefined);
        victim.child.kill('SIGKILL');
        killedBy = await victim.exited;
        workers.push(await startWorkerProcess(fixture.env));
      },
    });
    await waitForCatchUp(fixture.database.db, fixture.sim, 120_000);
    // With sync batches the books often catch up before the dead worker's jobs are handed out
    // again (their locks lapse, then BullMQ's two-step stalled check runs). Wait for that
    // re-run, then read the books: a second booking by it would show.
    await until(() => workers[1]!.output().includes('job stalled'), {
      message: "the dead worker's jobs handed out again",
      timeoutMs: 90_000,
      intervalMs: 200,
    }).catch(() => undefined);
    await until(() => queueBacklog(fixture.daemon!), {
      accept: (backlog) => backlog === 0,
      message: 'the queues drained',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    state = await waitForCatchUp(fixture.database.db, fixture.sim, 120_000);
  }, 300_000);

  afterAll(async () => {
    for (const worker of workers) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGTERM');
        await worker.exited;
      }
    }
    await fixture?.cleanup();
  });

  it('killed the worker while it held sync jobs', () => {
    expect(killedBy).toBe('SIGKILL');
    expect(activeAtKill).toBeGreaterThan(0);
    expect(workers).toHaveLength(2);
  });

  it("handed the dead worker's jobs out again once their locks lapsed", () => {
    expect(workers[1]!.output()).toContain('job stalled');
  });

  it('ends in the same state as the simulator, as in acceptance 1', () => {
    const summary = JSON.stringify(describeState(state));
    expect(state.items).toBe(500);
    expect(state.statusMismatches, summary).toEqual([]);
    expect(state.unbalancedJournals, summary).toEqual([]);
    expect(state.settlementProblems, summary).toEqual([]);
    expect(state.openInbox, summary).toEqual({});
  });
});
