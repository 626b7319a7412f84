import { afterEach, describe, expect, it } from 'vitest';
import {
  ackAlert,
  findAlert,
  transferFailedAlert,
  listAlerts,
  raiseAlert,
  raiseAlertFromFollowUp,
  resolveAlert,
  resolveAlertsByKey,
} from '../../src/alerts/index.ts';
import { recordDiscrepancy, resolveDiscrepancy } from '../../src/ledger/index.ts';
import { testDialect } from '../support/test-database.ts';
import {
  alertHarness,
  failedTransfer,
  stuckTransfer,
  type AlertHarness,
} from './support/alert-harness.ts';
import { slackHeaders, startHttpCollector, type HttpCollector } from './support/sink-servers.ts';

const HOUR = 3_600_000;

let harness: AlertHarness | undefined;
let slack: HttpCollector | undefined;
afterEach(async () => {
  await harness?.cleanup();
  await slack?.close();
  harness = undefined;
  slack = undefined;
});

async function withSlack() {
  slack = await startHttpCollector();
  harness = await alertHarness(
    { PAYSYNC_ALERT_SLACK_URL: slack.url },
    { pacing: { renotifyAfterMs: 4 * HOUR } },
  );
  const headers = () => slackHeaders(slack!);
  return { slack, harness, headers };
}

/** Acceptance 5: ack, snooze, resolution by the condition, and `alerts test`. */
describe(`alert life cycle, on ${testDialect()}`, () => {
  it('fires once while the condition holds, re-notifies an open alert, and an ack stops that', async () => {
    const { harness, headers } = await withSlack();
    const first = await raiseAlert(harness.deps, stuckTransfer('tr_stuck1'));
    expect(first.outcome).toBe('notified');
    // Seen again on the next check: the condition is already known, nothing is sent.
    harness.advance(60_000);
    expect((await raiseAlert(harness.deps, stuckTransfer('tr_stuck1'))).outcome).toBe(
      'already_open',
    );
    await harness.deliverer.runOnce();
    expect(headers()).toEqual([':rotating_light: Transfer tr_stuck1 has been pending for 3 hours']);

    harness.advance(4 * HOUR);
    await harness.deliverer.runOnce();
    expect(headers()).toHaveLength(2);
    expect(headers()[1]).toBe(
      ':rotating_light: Still open: Transfer tr_stuck1 has been pending for 3 hours',
    );

    await ackAlert(harness.deps, first.alert.id, { note: 'Aminata is calling the provider' });
    harness.advance(8 * HOUR);
    await harness.deliverer.runOnce();
    expect(headers()).toHaveLength(2);
    expect(await findAlert(harness.database.db, first.alert.id)).toMatchObject({
      status: 'acked',
      ackNote: 'Aminata is calling the provider',
    });
  });

  it('a snooze ends with one more notification when the condition still holds', async () => {
    const { harness, headers } = await withSlack();
    const { alert } = await raiseAlert(harness.deps, stuckTransfer('tr_stuck2'));
    await harness.deliverer.runOnce();
    await ackAlert(harness.deps, alert.id, { forMs: HOUR });
    harness.advance(HOUR - 1000);
    await harness.deliverer.runOnce();
    expect(headers()).toHaveLength(1);
    harness.advance(1000);
    await harness.deliverer.runOnce();
    await harness.deliverer.runOnce();
    expect(headers()).toEqual([
      ':rotating_light: Transfer tr_stuck2 has been pending for 3 hours',
      ':rotating_light: Still open: Transfer tr_stuck2 has been pending for 3 hours',
    ]);
    expect(await findAlert(harness.database.db, alert.id)).toMatchObject({
      status: 'open',
      snoozedUntil: null,
    });
  });

  it('a stuck transfer that settles resolves its alert, and Slack gets a resolved message', async () => {
    const { harness, headers } = await withSlack();
    const { alert } = await raiseAlert(harness.deps, stuckTransfer('tr_stuck3'));
    await harness.deliverer.runOnce();
    // The janitor sees the transfer settled: the condition cleared.
    const resolved = await resolveAlertsByKey(harness.deps, 'transfer_stuck:tr_stuck3');
    expect(resolved).toMatchObject({ id: alert.id, status: 'resolved', resolvedBy: 'condition' });
    await harness.deliverer.runOnce();
    expect(headers()).toEqual([
      ':rotating_light: Transfer tr_stuck3 has been pending for 3 hours',
      ':white_check_mark: Resolved: Transfer tr_stuck3 has been pending for 3 hours',
    ]);
    // Resolved means no reminder ever, and a second resolution is a no-op.
    harness.advance(24 * HOUR);
    expect(await resolveAlertsByKey(harness.deps, 'transfer_stuck:tr_stuck3')).toBeUndefined();
    await harness.deliverer.runOnce();
    expect(headers()).toHaveLength(2);
    await expect(resolveAlert(harness.deps, alert.id)).rejects.toThrow(
      /^alert \d+ was resolved at 2030-01-10T10:00:00.000Z \(by condition\); nothing to resolve$/,
    );
  });

  it("the janitor's stuck follow-up raises transfer_stuck; the settled transfer resolves it", async () => {
    const { harness, headers } = await withSlack();
    const db = harness.database.db;
    // What the polling janitor commits and queues for a transfer past its SLA.
    const { discrepancy } = await recordDiscrepancy(db, {
      createdAt: new Date().toISOString(),
      kind: 'stuck',
      resourceKind: 'transfer',
      resourceId: 'tr_stuck9',
      detail: { status: 'pending', since: '2030-01-10T06:48:00.000Z', age: '3h 12m' },
    });
    const raised = await raiseAlertFromFollowUp(harness.deps, {
      type: 'alert',
      reason: 'discrepancy',
      kind: 'transfer',
      id: 'tr_stuck9',
      status: 'pending',
      discrepancyId: discrepancy.id,
      discrepancyKind: 'stuck',
    });
    expect(raised.alert).toMatchObject({ kind: 'transfer_stuck', subject: 'tr_stuck9' });
    await harness.deliverer.runOnce();
    expect(headers()).toEqual([':rotating_light: Transfer tr_stuck9 stuck in pending for 3h 12m']);
    harness.advance(60_000);
    await harness.deliverer.runOnce();
    expect(headers()).toHaveLength(1);

    // The transfer settles: the ledger resolves the stuck discrepancy.
    await resolveDiscrepancy(db, discrepancy.id, new Date().toISOString());
    harness.advance(60_000);
    await harness.deliverer.runOnce();
    await harness.deliverer.runOnce();
    expect(headers()).toEqual([
      ':rotating_light: Transfer tr_stuck9 stuck in pending for 3h 12m',
      ':white_check_mark: Resolved: Transfer tr_stuck9 stuck in pending for 3h 12m',
    ]);
    expect((await listAlerts(db))[0]).toMatchObject({
      status: 'resolved',
      resolvedBy: 'condition',
    });
  });

  it('a failed transfer is an event: it notifies once and is never re-notified', async () => {
    const { harness, headers } = await withSlack();
    await raiseAlert(harness.deps, transferFailedAlert(failedTransfer()));
    await harness.deliverer.runOnce();
    harness.advance(24 * HOUR);
    await harness.deliverer.runOnce();
    expect(headers()).toEqual([
      ':warning: Transfer tr_alert0001 of 250,000 XOF to +22177•••••01 failed: recipient_not_found',
    ]);
  });

  it('a condition that clears and comes back within the dedupe window is recorded, not re-sent', async () => {
    const { harness, headers } = await withSlack();
    await raiseAlert(harness.deps, stuckTransfer('tr_flap'));
    await harness.deliverer.runOnce();
    await resolveAlertsByKey(harness.deps, 'transfer_stuck:tr_flap');
    harness.advance(10 * 60_000);
    expect((await raiseAlert(harness.deps, stuckTransfer('tr_flap'))).outcome).toBe('deduplicated');
    await harness.deliverer.runOnce();
    expect(headers()).toHaveLength(2);
    expect(harness.logs.filter((line) => line.includes('alert: Transfer tr_flap'))).toHaveLength(2);
    // Past the window (60 minutes by default) it is news again.
    await resolveAlertsByKey(harness.deps, 'transfer_stuck:tr_flap');
    harness.advance(61 * 60_000);
    expect((await raiseAlert(harness.deps, stuckTransfer('tr_flap'))).outcome).toBe('notified');
    await harness.deliverer.runOnce();
    expect(headers()).toEqual([
      ':rotating_light: Transfer tr_flap has been pending for 3 hours',
      ':white_check_mark: Resolved: Transfer tr_flap has been pending for 3 hours',
      ':rotating_light: Transfer tr_flap has been pending for 3 hours',
    ]);
  });
});
