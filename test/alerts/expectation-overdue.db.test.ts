import { afterEach, describe, expect, it } from 'vitest';
import {
  createAlertDeliverer,
  listAlerts,
  watchOverdueExpectations,
} from '../../src/alerts/index.ts';
import { markOverdue, resolveExpectation } from '../../src/expectations/index.ts';
import { expectation } from '../expectations/match-fixtures.ts';
import { insertExpectation } from '../expectations/support/matching-rows.ts';
import { testDialect } from '../support/test-database.ts';
import { alertHarness, type AlertHarness } from './support/alert-harness.ts';
import { slackHeaders, startHttpCollector, type HttpCollector } from './support/sink-servers.ts';

let harness: AlertHarness | undefined;
let slack: HttpCollector | undefined;
afterEach(async () => {
  await harness?.cleanup();
  await slack?.close();
  harness = undefined;
  slack = undefined;
});

const headers = () => slackHeaders(slack!);

/** `count` expected payouts of 25,000 XOF due 2030-01-09 and never paid, marked overdue. */
async function overduePayroll(count: number): Promise<void> {
  const db = harness!.database.db;
  for (let i = 1; i <= count; i += 1) {
    const { id: _id, ...fields } = expectation({
      expectation_id: `payroll-${i}`,
      reference: `payroll-${i}`,
      window_from: '2030-01-08T00:00:00.000Z',
      window_to: '2030-01-09T12:00:00.000Z',
    });
    await insertExpectation(db, fields);
  }
  await markOverdue(db, '2030-01-10T09:00:00.000Z', { environment: 'sandbox', allExpected: 'off' });
}

describe(`expectation_overdue alerts, on ${testDialect()}`, () => {
  it('an overdue expectation raises exactly one alert with a readable title; resolved by hand, it resolves', async () => {
    slack = await startHttpCollector();
    harness = await alertHarness({ PAYSYNC_ALERT_SLACK_URL: slack.url });
    const deliverer = createAlertDeliverer(harness.deps, {
      environment: 'sandbox',
      conditionIntervalMs: 0,
    });
    await overduePayroll(1);
    for (let i = 0; i < 3; i += 1) {
      await deliverer.runOnce();
      harness.advance(60_000);
    }
    const alerts = await listAlerts(harness.database.db);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      kind: 'expectation_overdue',
      severity: 'warning',
      subject: 'payroll-1',
      dedupeKey: 'expectation_overdue:sandbox:payroll-1',
      status: 'open',
      title: 'Expected payout of 25,000 XOF (payroll-1) is overdue since 2030-01-09T12:00:00.000Z',
    });
    expect(headers()).toEqual([
      ':warning: Expected payout of 25,000 XOF (payroll-1) is overdue since 2030-01-09T12:00:00.000Z',
    ]);

    await resolveExpectation(
      harness.database.db,
      { environment: 'sandbox', now: () => new Date('2030-01-10T11:00:00.000Z') },
      'payroll-1',
      { reason: 'paid by cheque', by: 'finance', source: 'cli' },
    );
    await deliverer.runOnce();
    await deliverer.runOnce();
    expect((await listAlerts(harness.database.db))[0]).toMatchObject({
      kind: 'expectation_overdue',
      status: 'resolved',
    });
  });

  it('a payroll of 30 overdue payouts is 30 alerts sent as one digest, not 30 pages', async () => {
    slack = await startHttpCollector();
    harness = await alertHarness({
      PAYSYNC_ALERT_SLACK_URL: slack.url,
      PAYSYNC_ALERT_DIGEST_THRESHOLD: '5',
    });
    await overduePayroll(30);
    await watchOverdueExpectations(harness.deps, 'sandbox');
    await watchOverdueExpectations(harness.deps, 'sandbox');
    const alerts = await listAlerts(harness.database.db, { limit: 1000 });
    expect(alerts).toHaveLength(30);
    expect(new Set(alerts.map((a) => a.dedupeKey)).size).toBe(30);
    expect(alerts.filter((a) => a.digested).length).toBe(25);
    // The first five go out on their own, the rest in a digest when its window closes.
    const deliverer = createAlertDeliverer(harness.deps);
    await deliverer.runOnce();
    harness.advance(6 * 60_000);
    await deliverer.runOnce();
    await deliverer.runOnce();
    const sent = headers();
    expect(sent).toHaveLength(6);
    expect(
      sent
        .slice(0, 5)
        .every((h) =>
          /^:warning: Expected payout of 25,000 XOF \(payroll-\d+\) is overdue/.test(h),
        ),
    ).toBe(true);
    expect(sent[5]).toBe(':warning: 30 expectations overdue in the last 5 minutes');
  });
});
