import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent, insertInboxEvent } from '../../src/inbox/index.ts';
import { enqueueIngest } from '../../src/queues/index.ts';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.ts';
import { runCli, startPaysync } from '../support/run-cli.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { createDaemonFixture, type DaemonFixture } from './support/daemon-fixture.ts';
import { startWorkerProcess } from './support/worker-process.ts';
import { until } from '../support/until.ts';

let fixture: DaemonFixture | undefined;
let redis: PrivateRedis | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  await redis?.stop();
  await database?.cleanup();
  fixture = undefined;
  redis = undefined;
  database = undefined;
});

describe('paysync work as a process', () => {
  it('on SIGTERM stops taking jobs, finishes the one in flight, and exits 0', async () => {
    fixture = await createDaemonFixture({
      // Every fetch of an intent takes 2 s: long enough to signal while one runs.
      sim: { faults: { latencyMs: 2000, operations: ['getPaymentIntent'] } },
    });
    const intent = fixture.sim.control.createPaymentIntent({
      amount: 900,
      purchaseReference: 'drain-1',
    });
    // In this process: only the queues (and a scheduler); the child does the work.
    const daemon = await fixture.startDaemon(['scheduler']);
    const worker = await startWorkerProcess(fixture.env);
    const { inboxId } = await insertInboxEvent(fixture.database.db, {
      receivedAt: new Date(),
      dedupeKey: 'drain:1',
      eventId: undefined,
      eventType: undefined,
      rawBody: Buffer.from(
        JSON.stringify({ type: 'payment_intent.created', data: { object: { id: intent.id } } }),
      ),
      headers: {},
    });
    await enqueueIngest(daemon.queues, inboxId);
    await until(async () => ((await daemon.queues.sync.getJobCounts('active')).active ?? 0) > 0, {
      message: 'the sync job active',
    }).catch(() => undefined); // asserted below
    expect((await daemon.queues.sync.getJobCounts('active')).active).toBe(1);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toMatch(/shutting down[\s\S]*"code":0[\s\S]*stopped/);
    // The job ran to the end instead of being dropped: its row is processed.
    expect(await findInboxEvent(fixture.database.db, inboxId)).toMatchObject({
      status: 'processed',
    });
    expect((await daemon.queues.sync.getJobCounts('active', 'waiting')).active).toBe(0);
  }, 60_000);

  it('refuses to start, in one line, while migrations are pending', async () => {
    database = await freshDatabase({ migrate: false });
    const result = await runCli(['work'], {
      env: {
        PAYSYNC_DATABASE_URL: database.url,
        PAYSYNC_UPSTREAM_URL: 'http://127.0.0.1:9',
        PAYSYNC_API_KEY: 'sk_test_pending_0000',
        PAYSYNC_MERCHANT_ID: 'm_pending',
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^paysync work: .* has \d+ migration\(s\) pending .*run `paysync migrate` first/,
    );
  }, 30_000);

  it('refuses a Redis that may evict jobs, saying why and how to fix it', async () => {
    redis = await startPrivateRedis(['--maxmemory-policy', 'allkeys-lru']);
    database = await freshDatabase();
    const result = await runCli(['work'], {
      env: {
        PAYSYNC_DATABASE_URL: database.url,
        PAYSYNC_REDIS_URL: redis.url,
        PAYSYNC_UPSTREAM_URL: 'http://127.0.0.1:9',
        PAYSYNC_API_KEY: 'sk_test_policy_0000',
        PAYSYNC_MERCHANT_ID: 'm_policy',
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^paysync work: Redis at .* has maxmemory-policy allkeys-lru; .*CONFIG SET maxmemory-policy noeviction/,
    );
  }, 30_000);

  it('paysync start serves the receiver with the workers, and stops cleanly on SIGTERM', async () => {
    fixture = await createDaemonFixture();
    const started = await startPaysync('start', fixture.env);
    const { port, output } = started;
    const health = await until(
      () => fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined),
      { message: `/healthz on port ${port}` },
    ).catch(() => undefined);
    expect(health?.status, output()).toBe(200);
    // The roles log as each starts; the receiver may answer before the scheduler has said so.
    await until(
      () => output().includes('workers taking jobs') && output().includes('scheduler running'),
      { message: `the workers and the scheduler said they run (output: ${output()})` },
    ).catch(() => undefined);
    expect(output()).toContain('workers taking jobs');
    expect(output()).toContain('scheduler running');
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  }, 30_000);
});
