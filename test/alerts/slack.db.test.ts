import { afterEach, describe, expect, it } from 'vitest';
import { listAlerts, listDeliveries } from '../../src/alerts/index.ts';
import { testDialect } from '../support/test-database.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { startAlertDaemon } from './support/alert-daemon.ts';
import { startHttpCollector, type HttpCollector } from './support/sink-servers.ts';
import { until } from '../support/until.ts';

interface SlackBody {
  text: string;
  blocks: { type: string; text?: { text: string }; elements?: { text: string }[] }[];
}

/** Every text a Slack message shows, header, sections and context. */
function shown(body: SlackBody): string {
  return body.blocks
    .flatMap((block) => [block.text?.text ?? '', ...(block.elements ?? []).map((e) => e.text)])
    .join('\n');
}

let fixture: DaemonFixture | undefined;
let slack: HttpCollector | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  await slack?.close();
  fixture = undefined;
  slack = undefined;
});

/** Acceptance 2: a failed transfer reaches Slack as one Block Kit message; a burst becomes a digest. */
describe(`Slack alerts, on ${testDialect()}`, () => {
  it('a failed transfer produces one Block Kit message: masked recipient, failure code, human amount', async () => {
    slack = await startHttpCollector('/services/T000/B000/slacktoken0001');
    fixture = await createDaemonFixture();
    await startAlertDaemon(fixture, { PAYSYNC_ALERT_SLACK_URL: slack.url }, { pollMs: 200 });
    await fixture.registerWebhook();
    const transfer = fixture.sim.control.createTransfer({
      amount: 1_250_000,
      currency: 'XOF',
      reference: 'alert-slack-1',
      destination: { number: '+221770009901' },
    });
    fixture.sim.control.advance(60_000);

    const received = await until(() => slack!.received, {
      accept: (list) => list.length >= 1,
      message: 'the first Slack message',
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(slack.received).toHaveLength(1);
    const body = JSON.parse(received[0]!.body) as SlackBody;
    expect(body.blocks.map((block) => block.type)).toEqual(['header', 'section', 'context']);
    const text = shown(body);
    expect(text).toContain(
      `Transfer ${transfer.id} of 1,250,000 XOF to +22177•••••01 failed: recipient_not_found`,
    );
    expect(text).toContain('The recipient account does not exist');
    expect(text).toContain(`paysync show ${transfer.id}`);
    expect(received[0]!.body).not.toContain('221770009901');

    const [delivery] = await listDeliveries(fixture.database.db, { sink: 'slack' });
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, event: 'firing' });
  });

  it('40 failures in one burst produce at most 6 messages: 5 on their own, then a digest of all 40', async () => {
    slack = await startHttpCollector();
    fixture = await createDaemonFixture();
    // The alerts' clock: the machine's, moved forward by the test once the burst is in, so the
    // digest window closes on that step instead of a minute of waiting.
    let ahead = 0;
    const alertClock = () => new Date(Date.now() + ahead);
    await startAlertDaemon(
      fixture,
      { PAYSYNC_ALERT_SLACK_URL: slack.url },
      // A minute: the 40 syncs must all land inside the window, and on a loaded CI machine they
      // took 25 s (the digest then held 25 and a second one the rest).
      { pollMs: 200, pacing: { digestWindowMs: 60_000 }, now: alertClock },
    );
    await fixture.registerWebhook();
    const codes = ['9901', '9901', '9901', '9902', '9903'];
    for (let i = 0; i < 40; i += 1) {
      fixture.sim.control.createTransfer({
        amount: 1000 + i,
        reference: `burst-${i}`,
        destination: { number: `+2217712${String(i).padStart(2, '0')}${codes[i % codes.length]}` },
      });
    }
    fixture.sim.control.advance(60_000);

    const db = fixture.database.db;
    expect(
      (
        await until(() => listAlerts(db, { limit: 100 }), {
          accept: (a) => a.length >= 40,
          message: '40 alerts',
          timeoutMs: 55_000,
        })
      ).length,
    ).toBe(40);
    // The five sent on their own, before the window ends (the rest wait for the digest).
    await until(() => slack!.received, {
      accept: (list) => list.length >= 5,
      message: 'five Slack messages on their own',
      timeoutMs: 55_000,
    });
    expect(slack.received.some((r) => r.body.includes('transfers failed in the last'))).toBe(false);
    // The window's minute passes on the alerts' clock.
    ahead += 60_000;
    const withDigest = await until(() => slack!.received, {
      accept: (list) => list.some((r) => r.body.includes('transfers failed in the last')),
      message: 'the digest message',
      timeoutMs: 90_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(slack.received.length).toBeLessThanOrEqual(6);
    expect(slack.received).toHaveLength(6);
    const digest = JSON.parse(
      withDigest.find((r) => r.body.includes('in the last'))!.body,
    ) as SlackBody;
    const text = shown(digest);
    expect(text).toContain('40 transfers failed in the last 1 minute');
    expect(text).toMatch(
      /24 × recipient_not_found, 8 × provider_unavailable, 8 × recipient_limit_exceeded; top 5 listed/,
    );
    // The digest names every one of the 40 alerts.
    const ids = (await listAlerts(db, { limit: 100 })).map((alert) => alert.id);
    const listed = /All 40: alerts ([\d, ]+)/.exec(text)![1]!.split(', ').map(Number);
    expect(listed.sort((a, b) => a - b)).toEqual(ids.sort((a, b) => a - b));
    expect(slack.received.map((r) => r.body).join('')).not.toMatch(/2217712\d{6}/);
  }, 180_000);
});
