import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { describeState, waitForCatchUp, type EndState } from '../processing/support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { startPrivateSentinel, type PrivateSentinel } from '../support/private-sentinel.ts';
import { runCli, startPaysync, type CliResult, type RunningPaysync } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';

/**
 * Issue 42.1: paysync behind Redis Sentinel (`PAYSYNC_REDIS_URL=redis+sentinel://…`). A real
 * `paysync start` takes webhooks from the simulator while the sentinel moves the master to the
 * replica; its queues, rate limiter and outbox follow, whatever Redis lost in the switch the
 * database's recovery sweep enqueues again, and every item ends booked exactly once.
 */
describe(`paysync start through a sentinel, failover mid-traffic, on ${testDialect()}`, () => {
  let topology: PrivateSentinel;
  let fixture: DaemonFixture;
  let paysync: RunningPaysync;
  let state: EndState;
  let masterBefore = '';
  let masterAfter = '';
  let createdAtFailover = -1;
  let audit: CliResult;
  let doctorBefore: CliResult;
  let doctorAfter: CliResult;
  let workersOnNewMaster = 0;

  beforeAll(async () => {
    topology = await startPrivateSentinel();
    masterBefore = await topology.currentMaster();
    fixture = await createDaemonFixture({
      redisUrl: topology.url,
      sim: { faults: { webhookDuplicateRate: 0.1, latencyMs: 2 } },
      env: {
        // Whatever the switch lost (a job queued on the old master after the promotion) is
        // found again in the database within seconds.
        PAYSYNC_RECOVERY_CRON: '*/2 * * * * *',
        PAYSYNC_RECOVERY_AFTER_SECONDS: '3',
        PAYSYNC_OUTBOX_REDISPATCH_SECONDS: '5',
        PAYSYNC_WORKER_CONCURRENCY: '4',
        // A job whose finish the old master took after the promotion is active on the new one
        // under a lock nobody renews: the stalled check hands it out again after this long.
        PAYSYNC_JOB_LOCK_MS: '4000',
      },
    });
    doctorBefore = await runCliInProcess(['doctor'], { env: fixture.env });
    paysync = await startPaysync('start', fixture.env);
    await until(
      () =>
        fetch(`http://127.0.0.1:${paysync.port}/healthz`)
          .then((response) => response.ok)
          .catch(() => false),
      { message: `paysync start on port ${paysync.port}`, timeoutMs: 60_000 },
    );
    await fixture.registerWebhook(`http://127.0.0.1:${paysync.port}${fixture.config.webhook.path}`);
    let failover: Promise<string> | undefined;
    await generateMixedTraffic(fixture.sim, fixture.client, {
      transfers: 60,
      paymentIntents: 60,
      refunds: 20,
      paymentRefunds: 10,
      batch: 15,
      onBatch: async (created) => {
        if (!failover && created >= 45) {
          createdAtFailover = created;
          // Not awaited here: the traffic goes on while the sentinel switches…
          failover = topology.failover();
        } else if (failover && created >= 105) {
          // …and the last items are created once the replica is the master.
          masterAfter = await failover;
        }
      },
    });
    expect(masterAfter).not.toBe('');
    state = await waitForCatchUp(fixture.database.db, fixture.sim, 60_000);
    // The books from first principles (the ground truth's balances would want opening
    // balances this short run never books; the state above compared every item with it).
    audit = await runCli(['audit'], { env: fixture.env });
    doctorAfter = await runCliInProcess(['doctor'], { env: fixture.env });
    // paysync's workers wait for jobs on the new master (BullMQ blocks in BZPOPMIN).
    const newMaster = new Redis({ port: topology.replicaPort, lazyConnect: true });
    try {
      await newMaster.connect();
      workersOnNewMaster = await until(
        async () => {
          const list = (await newMaster.call('CLIENT', 'LIST')) as string;
          return list.split('\n').filter((line) => line.includes('cmd=bzpopmin')).length;
        },
        { accept: (count) => count > 0, message: 'a worker blocked on the new master' },
      ).catch(() => 0);
    } finally {
      newMaster.disconnect();
    }
  }, 180_000);

  afterAll(async () => {
    if (paysync && paysync.child.exitCode === null) {
      paysync.child.kill('SIGTERM');
      const timer = setTimeout(() => paysync.child.kill('SIGKILL'), 10_000);
      await paysync.exited;
      clearTimeout(timer);
    }
    await fixture?.sim.stop().catch(() => undefined);
    await fixture?.database.cleanup().catch(() => undefined);
    await topology?.stop();
  });

  it('the sentinel moved the master to the replica while items were still being created', () => {
    expect(createdAtFailover).toBeGreaterThan(0);
    expect(createdAtFailover).toBeLessThan(150);
    expect(masterBefore).toBe(`127.0.0.1:${topology.masterPort}`);
    expect(masterAfter).toBe(`127.0.0.1:${topology.replicaPort}`);
  });

  it('every item ends booked exactly once, as the simulator has it', () => {
    const summary = JSON.stringify(describeState(state));
    expect(state.items).toBe(150);
    expect(state.statusMismatches, summary).toEqual([]);
    expect(state.settlementProblems, summary).toEqual([]);
    expect(state.unbalancedJournals, summary).toEqual([]);
    expect(state.openInbox, summary).toEqual({});
  });

  it('paysync audit against the ground truth is clean', () => {
    expect(audit.stderr).toBe('');
    expect(audit.stdout).toMatch(/audit clean/);
    expect(audit.code, audit.stdout).toBe(0);
  });

  it('doctor says which master it reached through which sentinel, before and after', () => {
    const line = (port: number) =>
      new RegExp(
        `^✔ redis +redis\\+sentinel://127\\.0\\.0\\.1:${topology.sentinelPort}/${topology.masterName} \\(master 127\\.0\\.0\\.1:${port} via sentinel 127\\.0\\.0\\.1:${topology.sentinelPort}\\), Redis [\\d.]+, maxmemory-policy noeviction$`,
        'm',
      );
    expect(doctorBefore.stdout).toMatch(line(topology.masterPort));
    expect(doctorAfter.stdout).toMatch(line(topology.replicaPort));
  });

  it("paysync's workers followed the master to the replica", () => {
    expect(workersOnNewMaster).toBeGreaterThan(0);
  });

  it('paysync kept running through the switch', () => {
    expect(paysync.child.exitCode, paysync.output().slice(-2000)).toBeNull();
  });
});
