import { afterEach, describe, expect, it } from 'vitest';
import {
  listAlerts,
  listDeliveries,
  raiseAlert,
  transferFailedAlert,
} from '../../src/alerts/index.ts';
import type { ConfigError } from '../../src/config/index.ts';
import { loadConfig, secretValues } from '../../src/config/index.ts';
import { testDialect } from '../support/test-database.ts';
import { alertHarness, failedTransfer, type AlertHarness } from './support/alert-harness.ts';
import {
  startHttpCollector,
  startSmtpInbox,
  type HttpCollector,
  type SmtpInbox,
} from './support/sink-servers.ts';

const SMTP_PASSWORD = 'Sm7p-secret-pass';
const WEBHOOK_SECRET = `whsec_${Buffer.from('webhook-secret-for-alerts-0001').toString('base64')}`;
const SLACK_TOKEN_PATH = '/services/T0SECRET/B0SECRET/xoxSlackToken123';
const FULL_NUMBER = '+221770009901';
const DIGITS = '221770009901';

let harness: AlertHarness | undefined;
const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await harness?.cleanup();
  for (const closer of closers.splice(0)) await closer.close();
  harness = undefined;
});

describe(`secrets and phone numbers in alerts, on ${testDialect()}`, () => {
  it('never reach any sink, the log, the delivery state or the alerts table', async () => {
    const slack: HttpCollector = await startHttpCollector(SLACK_TOKEN_PATH);
    const hook: HttpCollector = await startHttpCollector();
    const smtp: SmtpInbox = await startSmtpInbox('ops', SMTP_PASSWORD);
    closers.push(slack, hook, smtp);
    harness = await alertHarness(
      {
        PAYSYNC_API_KEY: 'sk_sandbox_apikey_never_shown',
        PAYSYNC_ALERT_SLACK_URL: slack.url,
        PAYSYNC_ALERT_SMTP_URL: smtp.url,
        PAYSYNC_ALERT_SMTP_ALLOW_PLAINTEXT: 'true',
        PAYSYNC_ALERT_EMAIL_FROM: 'paysync@example.com',
        PAYSYNC_ALERT_EMAIL_TO: 'ops@example.com',
        PAYSYNC_ALERT_WEBHOOK_URL: hook.url,
        PAYSYNC_ALERT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      },
      { pacing: { retryDelaysMs: [1000] } },
    );
    // The service's failure message echoes the number: the alert must still mask it.
    await raiseAlert(
      harness.deps,
      transferFailedAlert(
        failedTransfer({ failureMessage: `No wallet for ${FULL_NUMBER} (also 22177 000 9901)` }),
      ),
    );
    smtp.rejectWith = `Relay denied for ${FULL_NUMBER}`;
    await harness.deliverer.runOnce();
    smtp.rejectWith = undefined;
    harness.advance(1000);
    await harness.deliverer.runOnce();

    expect(slack.received).toHaveLength(1);
    expect(hook.received).toHaveLength(1);
    expect(smtp.messages).toHaveLength(1);
    const deliveries = await listDeliveries(harness.database.db);
    const everything = [
      ...slack.received.map((r) => r.body),
      ...hook.received.map((r) => JSON.stringify(r.headers) + r.body),
      ...smtp.messages,
      ...harness.logs,
      JSON.stringify(deliveries),
      JSON.stringify(await listAlerts(harness.database.db)),
    ].join('\n');
    expect(everything).toContain('+22177•••••01');
    for (const secret of [
      SMTP_PASSWORD,
      WEBHOOK_SECRET,
      'xoxSlackToken123',
      'sk_sandbox_apikey_never_shown',
      DIGITS,
      '22177 000 9901',
    ]) {
      expect(everything).not.toContain(secret);
    }
    expect(deliveries.find((d) => d.sink === 'email')).toMatchObject({
      status: 'delivered',
      attempts: 2,
    });
  });

  it('the SMTP password and the webhook secret are config secrets: redacted in errors, scrubbed from logs', () => {
    const config = loadConfig({
      PAYSYNC_ALERT_SMTP_URL: `smtps://ops:${SMTP_PASSWORD}@mail.example.com:465`,
      PAYSYNC_ALERT_EMAIL_FROM: 'paysync@example.com',
      PAYSYNC_ALERT_EMAIL_TO: 'ops@example.com',
      PAYSYNC_ALERT_WEBHOOK_URL: 'https://hooks.example.com/paysync',
      PAYSYNC_ALERT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    });
    expect(secretValues(config)).toEqual(expect.arrayContaining([SMTP_PASSWORD, WEBHOOK_SECRET]));
    const bad = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return error as ConfigError;
      }
      throw new Error('expected a ConfigError');
    };
    const smtpError = bad({ PAYSYNC_ALERT_SMTP_URL: `ftp://ops:${SMTP_PASSWORD}@mail` });
    expect(smtpError.message).toBe(
      'PAYSYNC_ALERT_SMTP_URL is invalid: must be smtp://user:password@host:port or smtps://user:password@host:port',
    );
    const secretError = bad({
      PAYSYNC_ALERT_WEBHOOK_URL: 'https://x.example',
      PAYSYNC_ALERT_WEBHOOK_SECRET: 'short!',
    });
    expect(secretError.message).not.toContain('short!');
    expect(secretError.variable).toBe('PAYSYNC_ALERT_WEBHOOK_SECRET');
    expect(bad({ PAYSYNC_ALERT_SMTP_URL: 'smtp://mail.example.com:25' }).message).toMatch(
      /^PAYSYNC_ALERT_EMAIL_FROM is not set: PAYSYNC_ALERT_SMTP_URL is/,
    );
  });
});
