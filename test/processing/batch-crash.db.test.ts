import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/test-database.ts';
import { createDaemonFixture, queueBacklog, type DaemonFixture } from './support/daemon-fixture.ts';
import { describeState, waitForCatchUp, type EndState } from './support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.ts';
import { until } from '../support/until.ts';

/**
 * Issue 21, "Crash inside a batch": the `paysync work` process is killed with SIGKILL while a
 * sync batch is in the middle of its fetches, and (in a second run) between a batch's commit
 * and its acknowledgement to BullMQ. After a new worker starts, every item is booked exactly
 * once and the books match the simulator.
 */
interface CrashRun {
  fixture: DaemonFixture;
  workers: WorkerProcess[];
  state: EndState;
  killedBy: number | string | undefined;
  batchesActiveAtKill: number;
}

const activeBatches = async (fixture: DaemonFixture) =>
  (await fixture.daemon!.queues.sync.getJobs(['active'])).filter((job) => job.name === 'sync-batch')
    .length;

async function crashRun(
  faults: Record<string, number>,
  firstWorkerEnv: Record<string, string>,
  killWhen: (fixture: DaemonFixture, worker: WorkerProcess) => Promise<number>,
): Promise<CrashRun> {
  const fixture = await createDaemonFixture({
    sim: { faults: { webhookDuplicateRate: 0.2, webhookReorderRate: 0.2, ...faults } },
    env: {
      PAYSYNC_JOB_LOCK_MS: '3000',
      PAYSYNC_RECOVERY_CRON: '*/2 * * * * *',
      PAYSYNC_RECOVERY_AFTER_SECONDS: '8',
      PAYSYNC_WORKER_CONCURRENCY: '4',
    },
  });
  await fixture.startDaemon(['receiver', 'scheduler']);
  await fixture.registerWebhook();
  const run: CrashRun = {
    fixture,
    workers: [await startWorkerProcess({ ...fixture.env, ...firstWorkerEnv })],
    state: undefined as unknown as EndState,
    killedBy: undefined,
    batchesActiveAtKill: -1,
  };
  let killed = false;
  await generateMixedTraffic(fixture.sim, fixture.client, {
    transfers: 80,
    paymentIntents: 80,
    refunds: 25,
    paymentRefunds: 15,
    backlog: () => queueBacklog(fixture.daemon!),
    maxBacklog: 150,
    onBatch: async (created) => {
      if (killed || created < 60) return;
      killed = true;
      const victim = run.workers[0]!;
      run.batchesActiveAtKill = await killWhen(fixture, victim);
      victim.child.kill('SIGKILL');
      run.killedBy = await victim.exited;
      run.workers.push(await startWorkerProcess(fixture.env));
    },
  });
  await waitForCatchUp(fixture.database.db, fixture.sim, 120_000);
  // The books may catch up before the dead worker's batch is handed out again (its lock must
  // lapse, then the stalled-job check must run): wait for that re-run, and for the queue to
  // drain, before reading the end state, so a second booking by the re-run would be seen.
  await until(() => run.workers[1]!.output().includes('job stalled'), {
    message: "the dead worker's batch handed out again",
    timeoutMs: 90_000,
    intervalMs: 200,
  }).catch(() => undefined);
  await until(() => queueBacklog(fixture.daemon!), {
    accept: (backlog) => backlog === 0,
    message: 'the sync queue drained',
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  await until(() => activeBatches(fixture), {
    accept: (active) => active === 0,
    message: 'no sync batch running',
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  run.state = await waitForCatchUp(fixture.database.db, fixture.sim, 120_000);
  return run;
}

async function stopRun(run: CrashRun | undefined) {
  for (const worker of run?.workers ?? []) {
    if (worker.child.exitCode === null && worker.child.signalCode === null) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  }
  await run?.fixture.cleanup();
}

function expectBookedOnce(run: CrashRun) {
  const summary = JSON.stringify(describeState(run.state));
  expect(run.state.items).toBe(200);
  expect(run.state.statusMismatches, summary).toEqual([]);
  expect(run.state.unbalancedJournals, summary).toEqual([]);
  // Exactly one settlement journal per settled item, none for the others.
  expect(run.state.settlementProblems, summary).toEqual([]);
  expect(run.state.openInbox, summary).toEqual({});
}

describe(`a worker killed in the middle of a batch's fetches, on ${testDialect()}`, () => {
  let run: CrashRun | undefined;

  beforeAll(async () => {
    // Every answer from the service takes 400 ms, so a batch spends most of its life fetching.
    run = await crashRun({ latencyMs: 400 }, {}, async (fixture) =>
      until(() => activeBatches(fixture), {
        accept: (active) => active > 0,
        message: 'a sync batch active',
        timeoutMs: 15_000,
        intervalMs: 20,
      }),
    );
  }, 300_000);
  afterAll(() => stopRun(run));

  it('killed the worker while a sync batch was active', () => {
    expect(run!.killedBy).toBe('SIGKILL');
    expect(run!.batchesActiveAtKill).toBeGreaterThan(0);
  });

  it("handed the dead worker's batch out again once its lock lapsed", () => {
    expect(run!.workers[1]!.output()).toContain('job stalled');
  });

  it('books every item exactly once and matches the simulator', () => {
    expectBookedOnce(run!);
  });
});

describe(`a worker killed between a batch's commit and its acknowledgement, on ${testDialect()}`, () => {
  let run: CrashRun | undefined;
  let committedBeforeKill = -1;

  beforeAll(async () => {
    run = await crashRun(
      { latencyMs: 5 },
      // The first worker holds every batch for a minute after its commit: killed in that hold.
      { PAYSYNC_SYNC_BATCH_HOLD_AFTER_COMMIT_MS: '60000' },
      async (fixture, worker) => {
        await until(async () => worker.output().includes('holding before its acknowledgement'), {
          accept: (held) => held,
          message: 'a sync batch committed and held',
          timeoutMs: 15_000,
          intervalMs: 20,
        });
        committedBeforeKill = await processedRows(fixture);
        return activeBatches(fixture);
      },
    );
  }, 300_000);
  afterAll(() => stopRun(run));

  async function processedRows(fixture: DaemonFixture): Promise<number> {
    const row = await fixture.database.db
      .selectFrom('webhook_inbox')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('status', '=', 'processed')
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  it('killed the worker after a batch committed and before BullMQ heard of it', () => {
    expect(run!.killedBy).toBe('SIGKILL');
    expect(committedBeforeKill).toBeGreaterThan(0);
    expect(run!.batchesActiveAtKill).toBeGreaterThan(0);
  });

  it('ran the committed batch again after the restart', () => {
    expect(run!.workers[1]!.output()).toContain('job stalled');
  });

  it('books every item exactly once and matches the simulator', () => {
    expectBookedOnce(run!);
  });
});
