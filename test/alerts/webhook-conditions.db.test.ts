import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAlertDeliverer,
  createAlertRuntime,
  listAlerts,
  type AlertDeliverer,
} from '../../src/alerts/index.ts';
import { loadConfig, secretValues } from '../../src/config/index.ts';
import { markInboxStatus } from '../../src/inbox/index.ts';
import { createLogger } from '../../src/logger.ts';
import { testDialect } from '../support/test-database.ts';
import {
  newWebhookSecret,
  signedEvent,
  startReceiverFixture,
  type ReceiverFixture,
} from '../receiver/support/receiver-fixture.ts';
import { slackHeaders, startHttpCollector, type HttpCollector } from './support/sink-servers.ts';

const MINUTE = 60_000;

interface Setup {
  readonly receiver: ReceiverFixture;
  readonly slack: HttpCollector;
  readonly deliverer: AlertDeliverer;
  readonly secret: string;
  readonly logs: string[];
  /** Moves the watcher's clock; the receiver keeps real time. */
  advance(ms: number): void;
  /** Two passes: the first raises or resolves, the second sends. */
  pass(): Promise<void>;
  headers(): string[];
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** A real receiver and, on its database, the workers' alert deliverer checking state every pass. */
async function setUp(env: Record<string, string> = {}): Promise<Setup> {
  const secret = newWebhookSecret();
  const receiver = await startReceiverFixture({ env: { PAYSYNC_WEBHOOK_SECRET: secret } });
  cleanups.push(() => receiver.cleanup());
  const slack = await startHttpCollector();
  cleanups.push(() => slack.close());
  const config = loadConfig({
    PAYSYNC_WEBHOOK_SECRET: secret,
    PAYSYNC_ALERT_SLACK_URL: slack.url,
    PAYSYNC_ALERT_SIGNATURE_FAILURES: '3',
    PAYSYNC_ALERT_SIGNATURE_MINUTES: '2',
    PAYSYNC_WEBHOOK_SILENCE_MINUTES: '30',
    ...env,
  });
  const logs: string[] = [];
  const logger = createLogger({
    level: 'debug',
    pretty: false,
    secrets: secretValues(config),
    destination: { write: (line: string) => void logs.push(line) },
  });
  let offset = 0;
  const runtime = createAlertRuntime(config.alerts, logger, {
    now: () => new Date(Date.now() + offset),
    environment: 'sandbox',
  });
  cleanups.push(() => runtime.close());
  const deliverer = createAlertDeliverer(
    { db: receiver.database.db, alerts: runtime },
    { conditionIntervalMs: 0 },
  );
  cleanups.push(() => deliverer.stop());
  return {
    receiver,
    slack,
    deliverer,
    secret,
    logs,
    advance(ms) {
      offset += ms;
    },
    async pass() {
      await deliverer.runOnce();
      await deliverer.runOnce();
    },
    headers: () => slackHeaders(slack),
  };
}

/** A sweep's run record that found `missed` items no webhook named, started at `at`. */
async function sweepFound(setup: Setup, missed: number, at: Date): Promise<void> {
  await setup.receiver.database.db
    .insertInto('scheduled_runs')
    .values({
      task: 'sweep',
      slot: `${at.toISOString()}:${randomBytes(3).toString('hex')}`,
      attempt: 1,
      trigger: 'schedule',
      started_at: at.toISOString(),
      heartbeat_at: at.toISOString(),
      finished_at: at.toISOString(),
      outcome: 'succeeded',
      items_missed: missed,
    })
    .execute();
}

describe(`webhook conditions (real receiver), on ${testDialect()}`, () => {
  it('more than N refused signatures in M minutes raise signature_failures once; it resolves when the window passes; no secret in it', async () => {
    const setup = await setUp();
    const forger = `whsec_${randomBytes(24).toString('base64')}`;
    const refuse = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const { body, headers } = signedEvent(forger);
        expect((await setup.receiver.post(body, headers)).status).toBe(401);
      }
    };
    await refuse(3); // N = 3: not more than N yet
    await setup.pass();
    expect(setup.headers()).toEqual([]);

    await refuse(1);
    await setup.pass();
    await refuse(2); // still holds: no second message
    await setup.pass();
    expect(setup.headers()).toEqual([
      ':rotating_light: 4 webhook signatures refused in the last 2 minutes: was the webhook secret rotated?',
    ]);
    expect(await setup.receiver.inboxCount()).toBe(0);

    setup.advance(4 * MINUTE); // the burst leaves the window
    await setup.pass();
    expect(setup.headers()).toEqual([
      ':rotating_light: 4 webhook signatures refused in the last 2 minutes: was the webhook secret rotated?',
      ':white_check_mark: Resolved: 4 webhook signatures refused in the last 2 minutes: was the webhook secret rotated?',
    ]);
    const [alert] = await listAlerts(setup.receiver.database.db);
    expect(alert).toMatchObject({
      kind: 'signature_failures',
      status: 'resolved',
      resolvedBy: 'condition',
    });
    const everything = [
      ...setup.slack.received.map((r) => r.body),
      JSON.stringify(await listAlerts(setup.receiver.database.db)),
      ...setup.logs,
    ].join('\n');
    for (const secret of [setup.secret, forger]) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(secret.slice('whsec_'.length));
    }
  });

  it('an unclassified inbox row raises unclassified_events once; it resolves when none is left', async () => {
    const setup = await setUp();
    const event = signedEvent(setup.secret);
    const accepted = await setup.receiver.post(event.body, event.headers);
    expect(accepted.status).toBeLessThan(300);
    await setup.pass();
    expect(await listAlerts(setup.receiver.database.db)).toEqual([]);

    const db = setup.receiver.database.db;
    const row = await db.selectFrom('webhook_inbox').select('id').executeTakeFirstOrThrow();
    await markInboxStatus(db, row.id, 'unclassified', { at: new Date() });
    await setup.pass();
    await setup.pass();
    const alerts = await listAlerts(db);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      kind: 'unclassified_events',
      severity: 'warning',
      status: 'open',
      title: '1 webhook event not understood (unclassified)',
    });
    // Warnings go to the log by default: one firing line.
    expect(setup.logs.filter((line) => line.includes('not understood')).length).toBe(1);

    await markInboxStatus(db, row.id, 'processed', { at: new Date() });
    await setup.pass();
    expect(await listAlerts(db)).toMatchObject([
      { kind: 'unclassified_events', status: 'resolved', resolvedBy: 'condition' },
    ]);
  });

  it('no webhook while sweeps find items raises webhooks_silent once; a webhook resolves it; a stale inbox raises it again', async () => {
    const setup = await setUp({ PAYSYNC_ALERT_DEDUPE_MINUTES: '1' });
    await sweepFound(setup, 0, new Date());
    await setup.pass(); // silent, but the sweeps found nothing: a quiet hour
    expect(setup.headers()).toEqual([]);

    await sweepFound(setup, 3, new Date());
    await setup.pass();
    await sweepFound(setup, 2, new Date());
    await setup.pass(); // still holds: no second message
    expect(setup.headers()).toEqual([
      ':rotating_light: No webhook received for 30 minutes while sweeps found 3 new items',
    ]);

    const event = signedEvent(setup.secret);
    expect((await setup.receiver.post(event.body, event.headers)).status).toBeLessThan(300);
    await setup.pass();
    expect(setup.headers()[1]).toBe(
      ':white_check_mark: Resolved: No webhook received for 30 minutes while sweeps found 3 new items',
    );

    // 31 minutes later, the last webhook is older than the window and a sweep finds an item.
    setup.advance(31 * MINUTE);
    await setup.pass();
    expect(setup.headers()).toHaveLength(2); // the earlier sweeps are out of the window
    await sweepFound(setup, 1, new Date(Date.now() + 31 * MINUTE));
    await setup.pass();
    expect(setup.headers()[2]).toBe(
      ':rotating_light: No webhook received for 30 minutes while sweeps found 1 new item',
    );
    const silent = (await listAlerts(setup.receiver.database.db)).filter(
      (a) => a.kind === 'webhooks_silent',
    );
    expect(silent.map((a) => a.status)).toEqual(['open', 'resolved']);
    expect(silent[0]!.body).toContain('The last webhook arrived at 20');
  });
});
