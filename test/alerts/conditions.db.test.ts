import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createAlertDeliverer, listAlerts } from '../../src/alerts/index.ts';
import { createQueues, JobName, QueueName, type Queues } from '../../src/queues/index.ts';
import { clearCredentialFailure, recordCredentialFailure } from '../../src/service-state/index.ts';
import { testDialect } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { alertHarness, type AlertHarness } from './support/alert-harness.ts';
import { startHttpCollector, until, type HttpCollector } from './support/sink-servers.ts';

let harness: AlertHarness | undefined;
let slack: HttpCollector | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  await harness?.cleanup();
  await slack?.close();
  harness = undefined;
  slack = undefined;
});

const headers = () =>
  slack!.received.map(
    (r) => (JSON.parse(r.body) as { blocks: { text: { text: string } }[] }).blocks[0]!.text.text,
  );

/** Conditions read from state: they alert once when they become true and resolve by themselves. */
describe(`conditions watched by the deliverer, on ${testDialect()}`, () => {
  it('the 401 pause raises upstream_auth_failed once; working credentials resolve it', async () => {
    slack = await startHttpCollector();
    harness = await alertHarness({ PAYSYNC_ALERT_SLACK_URL: slack.url });
    const db = harness.database.db;
    await recordCredentialFailure(db, {
      reason: '401 wrong_credentials',
      operation: 'GET /transfers/{id}',
      at: '2030-01-10T09:59:00.000Z',
    });
    await harness.deliverer.runOnce();
    await harness.deliverer.runOnce();
    harness.advance(60_000);
    await harness.deliverer.runOnce();
    await harness.deliverer.runOnce();
    expect(headers()).toEqual([
      ":rotating_light: The payment service refused paysync's credentials (401 wrong_credentials): syncing is paused",
    ]);

    await clearCredentialFailure(db);
    harness.advance(60_000);
    await harness.deliverer.runOnce();
    await harness.deliverer.runOnce();
    expect(headers()[1]).toBe(
      ":white_check_mark: Resolved: The payment service refused paysync's credentials (401 wrong_credentials): syncing is paused",
    );
    expect((await listAlerts(db))[0]).toMatchObject({
      kind: 'upstream_auth_failed',
      status: 'resolved',
    });
  });

  it('a job that failed for good raises dead_jobs', async () => {
    slack = await startHttpCollector();
    harness = await alertHarness({ PAYSYNC_ALERT_SLACK_URL: slack.url });
    const prefix = uniqueRedisPrefix('alerts');
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queues: Queues = createQueues({ connection, prefix });
    cleanups.push(async () => {
      await queues.close();
      await connection.quit();
      await deleteRedisPrefix(prefix);
    });
    const workerConnection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    cleanups.push(() => workerConnection.quit());
    const worker = new Worker(
      QueueName.followUp,
      async () => {
        throw new Error('boom');
      },
      { connection: workerConnection, prefix },
    );
    cleanups.push(() => worker.close());
    await queues.followUp.add(
      JobName.receipt,
      { type: 'receipt', kind: 'transfer', id: 'tr_dead', status: 'successful' },
      { attempts: 1 },
    );
    await until(
      async () => (await queues.followUp.getJobCounts('failed')).failed ?? 0,
      (failed) => failed === 1,
    );
    const deliverer = createAlertDeliverer(harness.deps, { queues, conditionIntervalMs: 0 });
    await deliverer.runOnce();
    await deliverer.runOnce();
    expect(headers()).toEqual([':rotating_light: 1 job failed for good (follow-up: 1)']);
  });
});
