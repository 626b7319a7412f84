import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { testDialect } from '../support/test-database.ts';
import {
  newWebhookSecret,
  signedEvent,
  startReceiverFixture,
  type ReceiverFixture,
} from './support/receiver-fixture.ts';

let fixture: ReceiverFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

/**
 * POSTs with header values given as arrays, which Node sends as one header line per element
 * (fetch would merge them into one line).
 */
function postLines(
  url: string,
  body: string,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.setHeader('content-type', 'application/json');
    for (const [name, value] of Object.entries(headers)) outgoing.setHeader(name, value);
    outgoing.end(body);
  });
}

/**
 * Standard Webhooks puts several signatures space-separated in ONE `webhook-signature` header;
 * HTTP allows a repeated header line only for comma-separated lists. A repeated signature, id
 * or timestamp line is therefore malformed, never a set of alternatives nor the id "a, b".
 */
describe(`receiver: repeated signature headers (7.B7) on ${testDialect()}`, () => {
  it('refuses a webhook-signature sent on two lines, even when one of them is valid', async () => {
    fixture = await startReceiverFixture();
    const event = signedEvent(fixture.config.webhookSecrets[0]!);
    const forged = signedEvent(newWebhookSecret(), { id: event.id, body: event.body });
    const answer = await postLines(`${fixture.url}${fixture.config.webhook.path}`, event.body, {
      ...event.headers,
      'webhook-signature': [
        forged.headers['webhook-signature']!,
        event.headers['webhook-signature']!,
      ],
    });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({
      error: 'malformed_signature',
      message: expect.stringMatching(/webhook-signature was sent on 2 header lines/),
    });
    expect(await fixture.inboxCount()).toBe(0);
  });

  it('refuses webhook-id on two lines instead of reading the id "a, b"', async () => {
    fixture = await startReceiverFixture();
    const secret = fixture.config.webhookSecrets[0]!;
    const at = new Date();
    const body = JSON.stringify({ type: 'transfer.updated', data: { id: 'tr_repeatedid' } });
    // Signed over the id Node would make of the two lines, so only the repetition is wrong.
    const signature = new Webhook(secret).sign('evt_a, evt_b', at, body);
    const answer = await postLines(`${fixture.url}${fixture.config.webhook.path}`, body, {
      'webhook-id': ['evt_a', 'evt_b'],
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    });
    expect(answer).toMatchObject({ status: 401, body: { error: 'malformed_signature' } });
    expect(answer.body.message).toMatch(/webhook-id was sent on 2 header lines/);
    expect(await fixture.inboxCount()).toBe(0);
  });

  it('still accepts several space-separated signatures in one header (secret rotation)', async () => {
    fixture = await startReceiverFixture();
    const event = signedEvent(fixture.config.webhookSecrets[0]!);
    const other = signedEvent(newWebhookSecret(), { id: event.id, body: event.body });
    const answer = await postLines(`${fixture.url}${fixture.config.webhook.path}`, event.body, {
      ...event.headers,
      'webhook-signature': `${other.headers['webhook-signature']!} ${event.headers['webhook-signature']!}`,
    });
    expect(answer).toMatchObject({ status: 202, body: { received: true, duplicate: false } });
    expect(await fixture.inboxCount()).toBe(1);
  });

  it('refuses a repeated HMAC signature header under the hmac scheme', async () => {
    const secret = 'plain-shared-secret-1234';
    fixture = await startReceiverFixture({
      env: { PAYSYNC_WEBHOOK_SCHEME: 'hmac', PAYSYNC_WEBHOOK_SECRET: secret },
    });
    const body = JSON.stringify({ id: 'evt_hmac_repeated', type: 'payment.updated' });
    const good = createHmac('sha256', secret).update(body).digest('hex');
    const answer = await postLines(`${fixture.url}${fixture.config.webhook.path}`, body, {
      'x-signature': ['00'.repeat(32), good],
    });
    expect(answer).toMatchObject({ status: 401, body: { error: 'malformed_signature' } });
    expect(await fixture.inboxCount()).toBe(0);
  });
});
