import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboxRecoveredTotal } from '../../src/reconcile/reconcile-metrics.ts';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.ts';
import { testDialect } from '../support/test-database.ts';
import { createDaemonFixture, queueBacklog, type DaemonFixture } from './support/daemon-fixture.ts';
import { describeState, waitForCatchUp, type EndState } from './support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function recoveredSoFar(): Promise<number> {
  return (await inboxRecoveredTotal.get()).values[0]?.value ?? 0;
}

/**
 * Acceptance 3: Redis forgets everything mid-run (FLUSHALL on a Redis of this test's own, so
 * no other test loses its keys). Queued ingest and sync jobs are gone; the inbox is not, and
 * the recovery sweep enqueues every row that sat unprocessed. The end state is the same as
 * acceptance 1.
 */
describe(`Redis flushed mid-run, on ${testDialect()}`, () => {
  let redis: PrivateRedis;
  let fixture: DaemonFixture;
  let state: EndState;
  let waitingBeforeFlush = -1;
  let jobsAfterFlush = -1;
  let recoveredBefore = 0;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    fixture = await createDaemonFixture({
      redisUrl: redis.url,
      sim: { faults: { webhookDuplicateRate: 0.2, webhookReorderRate: 0.2, latencyMs: 5 } },
      env: {
        PAYSYNC_RECOVERY_CRON: '*/2 * * * * *',
        PAYSYNC_RECOVERY_AFTER_SECONDS: '4',
        PAYSYNC_WORKER_CONCURRENCY: '4',
      },
    });
    await fixture.startDaemon(['receiver', 'workers', 'scheduler']);
    await fixture.registerWebhook();
    recoveredBefore = await recoveredSoFar();
    let paused = false;
    let flushed = false;
    await generateMixedTraffic(fixture.sim, fixture.client, {
      transfers: 200,
      paymentIntents: 200,
      refunds: 70,
      paymentRefunds: 30,
      backlog: async () => (paused && !flushed ? 0 : queueBacklog(fixture.daemon!)),
      onBatch: async (created) => {
        const workers = fixture.daemon!.workers!.workers;
        if (!paused && created >= 150) {
          // Hold the workers so a real backlog is queued when Redis forgets it.
          paused = true;
          await Promise.all(workers.map((worker) => worker.pause()));
        } else if (paused && !flushed && created >= 250) {
          flushed = true;
          // Let deliveries in flight land first, so nothing new is enqueued around the flush.
          await Promise.race([fixture.sim.control.webhooksIdle(), sleep(10_000)]);
          waitingBeforeFlush = await queueBacklog(fixture.daemon!);
          await redis.client.flushall();
          jobsAfterFlush = await queueBacklog(fixture.daemon!);
          // The scheduled tasks' worker first, until the recovery sweep has run: otherwise the
          // lost rows' items may get their later webhooks first, whose batches close the older
          // rows of the same resource, and the sweep would find nothing to recover.
          const scheduled = workers.filter((worker) => worker.name === 'scheduled');
          for (const worker of scheduled) worker.resume();
          const deadline = Date.now() + 30_000;
          while ((await recoveredSoFar()) === recoveredBefore && Date.now() < deadline) {
            await sleep(250);
          }
          for (const worker of workers) worker.resume();
        }
      },
    });
    state = await waitForCatchUp(fixture.database.db, fixture.sim, 120_000);
  }, 300_000);

  afterAll(async () => {
    await fixture?.cleanup();
    await redis?.stop();
  });

  it('lost queued jobs when Redis was flushed', () => {
    expect(waitingBeforeFlush).toBeGreaterThan(50);
    // A webhook delivery still in flight (the wait for idle gives up after 10 s on a loaded
    // machine) may enqueue a job between the flush and the count: the queued backlog is gone.
    expect(jobsAfterFlush).toBeLessThan(waitingBeforeFlush / 10);
  });

  it('the recovery sweep enqueued the inbox rows again', async () => {
    expect((await recoveredSoFar()) - recoveredBefore).toBeGreaterThan(0);
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
