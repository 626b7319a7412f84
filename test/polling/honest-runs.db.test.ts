import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { readCheckpoint, sweepStreamKey } from '../../src/polling/index.ts';
import { recentRuns, recordScheduledRun } from '../../src/runs/index.ts';
import {
  createQueues,
  createRedisConnection,
  enqueueScheduledTick,
  JobName,
} from '../../src/queues/index.ts';
import type { UpstreamClient } from '../../src/upstream/index.ts';
import { startWorkerProcess, type WorkerProcess } from '../processing/support/worker-process.ts';
import { testDialect } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { createSweepFixture, type SweepFixture } from './support/sweep-fixture.ts';
import { until } from '../support/until.ts';

const MINUTE = 60_000;

/** The real client, with a hook after each transfers list call (to start a 429 storm mid-walk). */
function afterTransferCalls(client: UpstreamClient, hook: (calls: number) => void): UpstreamClient {
  let calls = 0;
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'listTransfers' || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        calls += 1;
        hook(calls);
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
}

/** Acceptance 5: runs cut short are never recorded as succeeded. */
describe(`honest runs on ${testDialect()}`, () => {
  let fixture: SweepFixture;
  let worker: WorkerProcess | undefined;
  let prefix: string | undefined;
  afterEach(async () => {
    worker?.child.kill('SIGKILL');
    worker = undefined;
    if (prefix) await deleteRedisPrefix(prefix);
    prefix = undefined;
    await fixture?.cleanup();
  });

  it('a sweep meeting a 429 storm is partial and the next one resumes from its checkpoint', async () => {
    fixture = await createSweepFixture({
      client: { maxRetries: 1, retryInitialDelayMs: 5, retryMaxDelayMs: 20 },
    });
    const { sim, database } = fixture;
    expect((await fixture.sweep()).outcome).toBe('succeeded');
    const start = fixture.now();
    sim.control.advance(30 * MINUTE);
    sim.control.seed({
      kind: 'transfer',
      count: 400,
      from: start.toISOString(),
      to: fixture.now().toISOString(),
      settle: true,
    });

    // The storm starts after a few pages of the transfers walk and does not stop.
    const stormy = afterTransferCalls(fixture.client, (calls) => {
      if (calls === 15) sim.control.setFaults({ throttleRate: 1, operations: ['listTransfers'] });
    });
    const cut = await fixture.sweep({}, stormy);
    expect(cut.outcome).toBe('partial');
    expect(cut.error).toMatch(/transfers: .*429/);
    const [run] = await recentRuns(database.db, { limit: 1 });
    expect(run).toMatchObject({ outcome: 'partial' });

    const checkpoint = await readCheckpoint(database.db, sweepStreamKey('transfers', 'sandbox'));
    const position = Date.parse(checkpoint!.position);
    expect(position).toBeGreaterThan(start.getTime());
    expect(position).toBeLessThan(fixture.now().getTime());
    // Committed = exactly the transfers created before the checkpoint.
    const truth = sim.control.groundTruth({ kind: 'transfer' }).items.map((item) => ({
      id: item.id,
      createdAt: Date.parse(String(item.resource.createdAt)),
    }));
    const before = truth
      .filter((t) => t.createdAt < position)
      .map((t) => t.id)
      .sort();
    const mirrored = (await database.db.selectFrom('transfers').select('id').execute())
      .map((r) => r.id)
      .sort();
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(400);
    expect(mirrored).toEqual(before);

    sim.control.setFaults({ throttleRate: 0, operations: [] });
    const resumed = await fixture.sweep();
    expect(resumed.outcome).toBe('succeeded');
    const transfers = resumed.value!.find((r) => r.kind === 'transfers')!;
    expect(Date.parse(transfers.from)).toBe(position - 10 * MINUTE);
    expect(await database.db.selectFrom('transfers').select('id').execute()).toHaveLength(400);
  });

  it('a worker killed mid-run leaves a run that the next run of the task marks failed', async () => {
    fixture = await createSweepFixture();
    const { sim, database } = fixture;
    prefix = uniqueRedisPrefix('runs');
    worker = await startWorkerProcess({
      PAYSYNC_UPSTREAM_URL: sim.url,
      PAYSYNC_API_KEY: sim.credentials.apiKey,
      PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
      PAYSYNC_DATABASE_URL: database.url,
      PAYSYNC_REDIS_URL: TEST_REDIS_URL,
      PAYSYNC_QUEUE_PREFIX: prefix,
      PAYSYNC_RUN_STALE_SECONDS: '1',
    });
    // Every list answer now takes 5 s: the sweep is mid-run for a while.
    sim.control.setFaults({
      latencyMs: 5_000,
      operations: ['listPaymentIntents', 'listTransfers'],
    });
    const redis = createRedisConnection(TEST_REDIS_URL, 'producer');
    const queues = createQueues({ connection: redis, prefix });
    try {
      await enqueueScheduledTick(queues, JobName.sweep, {
        task: 'sweep',
        slot: '2030-01-01T10:00:00.000Z',
      });
      await until(
        async () => {
          const [run] = await recentRuns(database.db);
          return run?.outcome === 'running' ? run : undefined;
        },
        { message: 'the sweep run recorded as running', timeoutMs: 30_000 },
      );
      worker.child.kill('SIGKILL');
      await worker.exited;
      worker = undefined;
    } finally {
      await queues.close();
      await redis.quit().catch(() => redis.disconnect());
    }
    sim.control.setFaults({ latencyMs: 0, operations: [] });
    // Past the stale-run limit (1 s) on the recording clock, instead of waiting it out.
    const next = await recordScheduledRun(
      {
        db: database.db,
        logger: pino({ level: 'silent' }),
        staleRunAfterMs: 1_000,
        now: () => new Date(Date.now() + 1_500),
      },
      { task: 'sweep', slot: '2030-01-01T10:05:00.000Z' },
      async () => undefined,
    );
    expect(next.outcome).toBe('succeeded');
    expect(next.deadRunsFailed).toBe(1);
    const runs = Object.fromEntries((await recentRuns(database.db)).map((r) => [r.slot, r]));
    expect(runs['2030-01-01T10:00:00.000Z']).toMatchObject({ outcome: 'failed' });
    expect(runs['2030-01-01T10:00:00.000Z']!.error).toContain('stopped without finishing');
    expect(runs['2030-01-01T10:05:00.000Z']).toMatchObject({ outcome: 'succeeded' });
  });
});
