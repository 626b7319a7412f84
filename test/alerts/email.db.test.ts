import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { listDeliveries, raiseAlert, transferFailedAlert } from '../../src/alerts/index.ts';
import { testDialect } from '../support/test-database.ts';
import { alertHarness, failedTransfer, type AlertHarness } from './support/alert-harness.ts';
import { startSmtpInbox, type SmtpInbox } from './support/sink-servers.ts';

const PASSWORD = 'smtp-Pa55word-never-shown';

let harness: AlertHarness | undefined;
let smtp: SmtpInbox | undefined;
afterEach(async () => {
  await harness?.cleanup();
  await smtp?.close();
  harness = undefined;
  smtp = undefined;
});

/** A server without TLS: the password goes in the clear only because the setting allows it. */
async function withSmtp() {
  smtp = await startSmtpInbox('alerts@example.com', PASSWORD);
  harness = await alertHarness(
    {
      PAYSYNC_ALERT_SMTP_URL: smtp.url,
      PAYSYNC_ALERT_SMTP_ALLOW_PLAINTEXT: 'true',
      PAYSYNC_ALERT_EMAIL_FROM: 'paysync <paysync@example.com>',
      PAYSYNC_ALERT_EMAIL_TO: 'ops@example.com, finance@example.com',
    },
    { pacing: { retryDelaysMs: [1000, 1000] } },
  );
  return { smtp, harness };
}

/** Acceptance 3: a real SMTP server with auth receives the alert; a refusal is retried. */
describe(`e-mail alerts, on ${testDialect()}`, () => {
  it('arrive through SMTP with auth: subject, body, masked recipient', async () => {
    const { smtp, harness } = await withSmtp();
    const transfer = failedTransfer();
    await raiseAlert(harness.deps, transferFailedAlert(transfer));
    await harness.deliverer.runOnce();

    expect(smtp.logins).toEqual(['alerts@example.com']);
    expect(smtp.messages).toHaveLength(1);
    const mail = await simpleParser(smtp.messages[0]!);
    expect(mail.subject).toBe(
      '[paysync warning] Transfer tr_alert0001 of 250,000 XOF to +22177•••••01 failed: recipient_not_found',
    );
    expect(mail.from?.text).toBe('"paysync" <paysync@example.com>');
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe(
      'ops@example.com, finance@example.com',
    );
    expect(mail.text).toContain(
      'Failure: recipient_not_found: The recipient account does not exist.',
    );
    expect(mail.text).toContain('to +22177•••••01 (orange_money, SN)');
    expect(mail.text).toContain('See more: paysync show tr_alert0001');
    expect(smtp.messages[0]).not.toContain('221770009901');
    expect(smtp.messages[0]).not.toContain(PASSWORD);
    const [delivery] = await listDeliveries(harness.database.db, { sink: 'email' });
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('a server that rejects the message: failed with its reply, retried after the back-off, then delivered', async () => {
    const { smtp, harness } = await withSmtp();
    smtp.rejectWith = 'Message rejected: mailbox full for ops';
    await raiseAlert(harness.deps, transferFailedAlert(failedTransfer()));
    await harness.deliverer.runOnce();

    const [failed] = await listDeliveries(harness.database.db, { sink: 'email' });
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed!.lastError).toMatch(
      /^SMTP server replied: 550 Message rejected: mailbox full for ops/,
    );
    expect(failed!.nextAttemptAt).toBe('2030-01-10T10:00:01.000Z');
    expect(failed!.lastError).not.toContain(PASSWORD);

    // Not due yet: nothing is sent.
    await harness.deliverer.runOnce();
    expect((await listDeliveries(harness.database.db, { sink: 'email' }))[0]!.attempts).toBe(1);

    smtp.rejectWith = undefined;
    harness.advance(1000);
    await harness.deliverer.runOnce();
    const [retried] = await listDeliveries(harness.database.db, { sink: 'email' });
    expect(retried).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(smtp.messages).toHaveLength(1);
    expect(harness.logs.join('')).not.toContain(PASSWORD);
  });

  it('issue 38.8: never send the password without TLS unless PAYSYNC_ALERT_SMTP_ALLOW_PLAINTEXT=true', async () => {
    smtp = await startSmtpInbox('alerts@example.com', PASSWORD, 'none');
    harness = await alertHarness({
      PAYSYNC_ALERT_SMTP_URL: smtp.url,
      PAYSYNC_ALERT_EMAIL_FROM: 'paysync@example.com',
      PAYSYNC_ALERT_EMAIL_TO: 'ops@example.com',
    });
    await raiseAlert(harness.deps, transferFailedAlert(failedTransfer()));
    await harness.deliverer.runOnce();
    const [refused] = await listDeliveries(harness.database.db, { sink: 'email' });
    expect(refused).toMatchObject({ status: 'failed', attempts: 1 });
    expect(refused!.lastError).toMatch(/STARTTLS|TLS/);
    expect(refused!.lastError).not.toContain(PASSWORD);
    // The server never saw a login, and received nothing.
    expect(smtp.logins).toEqual([]);
    expect(smtp.messages).toEqual([]);
  });

  it.each(['starttls', 'implicit'] as const)(
    'go over TLS (%s) with auth when the server offers it',
    async (tls) => {
      smtp = await startSmtpInbox('alerts@example.com', PASSWORD, tls);
      // The test server's certificate is self-signed; nodemailer reads TLS options from the URL.
      harness = await alertHarness({
        PAYSYNC_ALERT_SMTP_URL: `${smtp.url}?tls.rejectUnauthorized=false`,
        PAYSYNC_ALERT_EMAIL_FROM: 'paysync@example.com',
        PAYSYNC_ALERT_EMAIL_TO: 'ops@example.com',
      });
      await raiseAlert(harness.deps, transferFailedAlert(failedTransfer()));
      await harness.deliverer.runOnce();
      expect((await listDeliveries(harness.database.db, { sink: 'email' }))[0]).toMatchObject({
        status: 'delivered',
      });
      expect(smtp.encrypted).toEqual([true]);
      expect(smtp.logins).toEqual(['alerts@example.com']);
    },
  );
});
