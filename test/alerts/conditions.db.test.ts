import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAlertDeliverer,
  listAlerts,
  raiseAlertFromFollowUp,
} from '../../src/alerts/index.ts';
import { createQueues, JobName, QueueName, type Queues } from '../../src/queues/index.ts';
import { recordDiscrepancy, resolveDiscrepancy } from '../../src/ledger/index.ts';
import { storeVerdict, type DailyReport } from '../../src/reports/index.ts';
import { clearCredentialFailure, recordCredentialFailure } from '../../src/service-state/index.ts';
import { testDialect } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { alertHarness, type AlertHarness } from './support/alert-harness.ts';
import { slackHeaders, startHttpCollector, type HttpCollector } from './support/sink-servers.ts';
import { until } from '../support/until.ts';

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

const headers = () => slackHeaders(slack!);

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
    await until(async () => (await queues.followUp.getJobCounts('failed')).failed ?? 0, {
      accept: (failed) => failed === 1,
      message: 'one follow-up job failed',
    });
    const deliverer = createAlertDeliverer(harness.deps, { queues, conditionIntervalMs: 0 });
    await deliverer.runOnce();
    await deliverer.runOnce();
    expect(headers()).toEqual([':rotating_light: 1 job failed for good (follow-up: 1)']);
  });

  it('an open balance drift alerts once and resolves when balances resolves the drift', async () => {
    slack = await startHttpCollector();
    harness = await alertHarness({ PAYSYNC_ALERT_SLACK_URL: slack.url });
    const db = harness.database.db;
    const { discrepancy } = await recordDiscrepancy(db, {
      createdAt: new Date().toISOString(),
      kind: 'balance_drift',
      resourceKind: 'balance',
      resourceId: 'sandbox:transfer:XOF',
      detail: {
        account: 'service:transfer',
        currency: 'XOF',
        asOf: '2030-01-10T09:00:00.000Z',
        service: 900_000,
        ledger: 1_000_000,
        difference: -100_000,
        amount: -100_000,
      },
    });
    await harness.deliverer.runOnce();
    await harness.deliverer.runOnce();
    expect(headers()).toEqual([
      ':rotating_light: Balance drift on service:transfer XOF: -100,000 XOF unexplained',
    ]);
    await resolveDiscrepancy(db, discrepancy.id, new Date().toISOString());
    harness.advance(30_000);
    await harness.deliverer.runOnce();
    await harness.deliverer.runOnce();
    expect(headers()[1]).toBe(
      ':white_check_mark: Resolved: Balance drift on service:transfer XOF: -100,000 XOF unexplained',
    );
  });

  it('a stored BREAKS verdict raises day_not_reconciled; a reconciled recomputation resolves it', async () => {
    slack = await startHttpCollector();
    harness = await alertHarness({ PAYSYNC_ALERT_SLACK_URL: slack.url });
    const deliverer = createAlertDeliverer(harness.deps, {
      environment: 'sandbox',
      conditionIntervalMs: 0,
    });
    const report = (verdict: DailyReport['verdict']): DailyReport => ({
      environment: 'sandbox',
      day: '2030-01-09',
      timeZone: 'UTC',
      window: { from: '2030-01-09T00:00:00.000Z', to: '2030-01-10T00:00:00.000Z' },
      generatedAt: '2030-01-10T00:20:00.000Z',
      verdict,
      counts: [],
      money: [],
      pending: [],
      breaks:
        verdict === 'BREAKS'
          ? [
              {
                kind: 'amount_changed',
                subject: 'tr_x',
                line: 'tr_x changed amount',
                action: 'check it',
              },
            ]
          : [],
      endOfDayBalances: null,
      incomplete: [],
      ageing: [],
    });
    await storeVerdict(harness.database.db, report('BREAKS'));
    // The verdict task also writes the alert to the outbox: both roads meet on one alert.
    const viaOutbox = await raiseAlertFromFollowUp(harness.deps, {
      type: 'alert',
      reason: 'day_not_reconciled',
      kind: 'day',
      id: 'sandbox:2030-01-09',
      detail: { verdict: 'BREAKS', breaks: ['tr_x changed amount'], incomplete: [] },
    } as never);
    expect(viaOutbox.outcome).toBe('notified');
    await deliverer.runOnce();
    await deliverer.runOnce();
    expect(headers()).toEqual([':rotating_light: 2030-01-09 is not reconciled: BREAKS (1 break)']);
    await storeVerdict(harness.database.db, report('RECONCILED'));
    await deliverer.runOnce();
    await deliverer.runOnce();
    expect(headers()[1]).toBe(
      ':white_check_mark: Resolved: 2030-01-09 is not reconciled: BREAKS (1 break)',
    );
  });

  it('another component raises its own kind through a flat outbox payload', async () => {
    slack = await startHttpCollector();
    harness = await alertHarness({ PAYSYNC_ALERT_SLACK_URL: slack.url });
    const payload = {
      type: 'alert' as const,
      reason: 'low_balance',
      severity: 'critical' as const,
      dedupeKey: 'low_balance:transfer:XOF',
      title: 'The transfer account holds 400,000 XOF, under its 1,000,000 XOF minimum',
      detail: { account: 'transfer', currency: 'XOF', amount: 400_000, minimum: 1_000_000 },
      outboxId: 7,
    };
    const first = await raiseAlertFromFollowUp(harness.deps, payload);
    // The outbox may hand the same row out twice: the second is absorbed.
    expect((await raiseAlertFromFollowUp(harness.deps, payload)).outcome).toBe('already_open');
    await harness.deliverer.runOnce();
    expect(first.alert).toMatchObject({
      kind: 'low_balance',
      severity: 'critical',
      occurrences: 1,
    });
    expect(headers()).toEqual([
      ':rotating_light: The transfer account holds 400,000 XOF, under its 1,000,000 XOF minimum',
    ]);
    await expect(
      raiseAlertFromFollowUp(harness.deps, { type: 'alert', reason: 'low_balanse', title: 'x' }),
    ).rejects.toThrow(/unknown kind "low_balanse"/);
  });

  it("balances' outbox alerts: a drift meets the state watcher on one alert; a low balance resolves when a newer snapshot is back up", async () => {
    slack = await startHttpCollector();
    harness = await alertHarness({ PAYSYNC_ALERT_SLACK_URL: slack.url });
    const db = harness.database.db;
    const { discrepancy } = await recordDiscrepancy(db, {
      createdAt: new Date().toISOString(),
      kind: 'balance_drift',
      resourceKind: 'balance',
      resourceId: 'sandbox:transfer:XOF',
      detail: {
        account: 'service:transfer',
        currency: 'XOF',
        amount: -100_000,
        difference: -100_000,
      },
    });
    // What balances writes to the outbox with the drift, as the follow-up job hands it over.
    await raiseAlertFromFollowUp(harness.deps, {
      type: 'alert',
      reason: 'discrepancy',
      kind: 'balance' as never,
      id: 'sandbox:transfer:XOF',
      discrepancyId: discrepancy.id,
      discrepancyKind: 'balance_drift',
    });
    const crossing = {
      environment: 'sandbox',
      accountType: 'transfer',
      currency: 'XOF',
      amount: 400_000,
      minimum: 1_000_000,
      asOf: '2030-01-10T09:00:00.000Z',
      crossings: 1,
    };
    await raiseAlertFromFollowUp(harness.deps, {
      type: 'alert',
      reason: 'low_balance',
      kind: 'balance',
      id: 'sandbox:transfer:XOF',
      detail: crossing,
    } as never);
    await harness.deliverer.runOnce();
    await harness.deliverer.runOnce();
    expect(headers().sort()).toEqual([
      ':rotating_light: Balance drift on service:transfer XOF: -100,000 XOF unexplained',
      ':rotating_light: Low balance: the transfer account holds 400,000 XOF, under its 1,000,000 XOF minimum',
    ]);
    expect((await listAlerts(db)).map((a) => a.kind).sort()).toEqual([
      'balance_drift',
      'low_balance',
    ]);

    await db
      .insertInto('balance_snapshots')
      .values({
        environment: 'sandbox',
        account_type: 'transfer',
        currency: 'XOF',
        amount: 1_500_000,
        as_of: '2030-01-10T10:00:00.000Z',
        taken_at: '2030-01-10T10:00:01.000Z',
        kind: 'scheduled',
        raw: '{}',
      })
      .execute();
    harness.advance(30_000);
    await harness.deliverer.runOnce();
    await harness.deliverer.runOnce();
    const low = (await listAlerts(db)).find((a) => a.kind === 'low_balance')!;
    expect(low).toMatchObject({ status: 'resolved', resolvedBy: 'condition' });
  });
});
