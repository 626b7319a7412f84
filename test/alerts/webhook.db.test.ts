import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  listAlerts,
  listDeliveries,
  raiseAlert,
  transferFailedAlert,
} from '../../src/alerts/index.ts';
import { testDialect } from '../support/test-database.ts';
import { alertHarness, failedTransfer, type AlertHarness } from './support/alert-harness.ts';
import { startHttpCollector, type HttpCollector } from './support/sink-servers.ts';

const SECRET = `whsec_${Buffer.from('alert-webhook-secret-bytes-32-long!').toString('base64')}`;

let harness: AlertHarness | undefined;
const servers: HttpCollector[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await harness?.cleanup();
  for (const server of servers.splice(0)) await server.close();
  harness = undefined;
});

/** Acceptance 4: the receiver verifies the Standard Webhooks signature of the alert. */
describe(`webhook alerts, on ${testDialect()}`, () => {
  it('are signed with Standard Webhooks; the receiver verifies them with the shared secret', async () => {
    const receiver = await startHttpCollector();
    servers.push(receiver);
    harness = await alertHarness({
      PAYSYNC_ALERT_WEBHOOK_URL: receiver.url,
      PAYSYNC_ALERT_WEBHOOK_SECRET: SECRET,
    });
    await raiseAlert(harness.deps, transferFailedAlert(failedTransfer()));
    await harness.deliverer.runOnce();

    expect(receiver.received).toHaveLength(1);
    const { headers, body } = receiver.received[0]!;
    // Signed on the injected clock (2030), not the machine's: the receiver's clock agrees with
    // the sender's, so its verification (standardwebhooks reads Date) runs at that time.
    const signedAt = harness.runtime.now();
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(signedAt.getTime() / 1000)));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(signedAt);
    const verified = new Webhook(SECRET).verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    }) as {
      type: string;
      data: { kind: string; subject: string; detail: Record<string, unknown> };
    };
    expect(verified.type).toBe('alert.firing');
    expect(verified.data).toMatchObject({
      kind: 'transfer_failed',
      subject: 'tr_alert0001',
      detail: { failureCode: 'recipient_not_found', amount: 250_000, recipient: '+22177•••••01' },
    });
    // A tampered body or another secret does not verify.
    expect(() =>
      new Webhook(SECRET).verify(body.replace('250000', '250001'), {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      }),
    ).toThrow();
    expect(body).not.toContain('221770009901');
    expect(body).not.toContain(SECRET);
  });

  it('a sink that keeps failing is reported on the other sinks, and the report resolves when it recovers', async () => {
    const slack = await startHttpCollector();
    const receiver = await startHttpCollector();
    servers.push(slack, receiver);
    slack.answer = 500;
    harness = await alertHarness(
      {
        PAYSYNC_ALERT_SLACK_URL: slack.url,
        PAYSYNC_ALERT_WEBHOOK_URL: receiver.url,
        PAYSYNC_ALERT_WEBHOOK_SECRET: SECRET,
      },
      { pacing: { retryDelaysMs: [1000, 1000, 1000, 1000], sinkFailingAfter: 3 } },
    );
    await raiseAlert(harness.deps, transferFailedAlert(failedTransfer()));
    for (let i = 0; i < 3; i += 1) {
      if (i > 0) harness.advance(1000);
      await harness.deliverer.runOnce();
    }
    // The third failure raised sink_failing; this pass sends it (slack's retry is not due yet).
    await harness.deliverer.runOnce();
    const [slackDelivery] = await listDeliveries(harness.database.db, { sink: 'slack' });
    expect(slackDelivery).toMatchObject({ status: 'failed', attempts: 3 });
    expect(slackDelivery!.lastError).toBe('Slack webhook answered HTTP 500: invalid_token');

    const kinds = receiver.received.map(
      (r) => (JSON.parse(r.body) as { data: { kind: string } }).data.kind,
    );
    expect(kinds).toEqual(['transfer_failed', 'sink_failing']);
    const failing = (await listAlerts(harness.database.db)).find((a) => a.kind === 'sink_failing')!;
    expect(failing.title).toBe(
      'Alert sink slack keeps failing: Slack webhook answered HTTP 500: invalid_token',
    );
    // Never to the failing sink itself.
    const failingDeliveries = await listDeliveries(harness.database.db, { event: 'firing' });
    expect(
      failingDeliveries
        .filter((d) => d.alertId === failing.id)
        .map((d) => d.sink)
        .sort(),
    ).toEqual(['log', 'webhook']);

    slack.answer = 200;
    harness.advance(1000);
    await harness.deliverer.runOnce();
    expect(slack.received).toHaveLength(1);
    const after = (await listAlerts(harness.database.db)).find((a) => a.kind === 'sink_failing')!;
    expect(after).toMatchObject({ status: 'resolved', resolvedBy: 'condition' });
  });
});
