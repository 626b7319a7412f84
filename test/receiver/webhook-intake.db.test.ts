import { createHmac, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent } from '../../src/inbox/index.ts';
import { metricsRegistry, signatureFailures } from '../../src/metrics/index.ts';
import { closedPort } from '../support/run-cli.ts';
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

async function failuresFor(reason: string): Promise<number> {
  const metric = await signatureFailures.get();
  return metric.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

describe('receiver: accepted webhooks', () => {
  it('checks signed timestamps against, and stamps received_at with, the injected clock', async () => {
    const clock = new Date('2030-01-02T03:04:05.678Z');
    fixture = await startReceiverFixture({ now: () => clock });
    const secret = fixture.config.webhookSecrets[0]!;
    const onTime = signedEvent(secret, { at: clock });
    const answer = await fixture.post(onTime.body, onTime.headers);
    expect(answer.status).toBe(202);
    const row = await findInboxEvent(fixture.database.db, answer.body.inboxId as number);
    expect(row!.receivedAt).toBe(clock.toISOString());
    // Signed by the machine's clock, years before the receiver's: outside the tolerance.
    const machine = signedEvent(secret, { at: new Date() });
    const stale = await fixture.post(machine.body, machine.headers);
    expect(stale).toMatchObject({ status: 401, body: { error: 'stale_timestamp' } });
  });

  it('stores a valid event byte for byte, answers 202, and enqueues ingest with jobId inbox-<id>', async () => {
    fixture = await startReceiverFixture();
    // Odd spacing and non-ASCII text: the stored bytes must be the sent bytes, not re-serialised JSON.
    const event = signedEvent(fixture.config.webhookSecrets[0]!, {
      id: 'evt_exactbytes000000000001',
      body: '{ "id":"evt_exactbytes000000000001",  "type":"transfer.updated", "note":"Café ✓" }\n',
    });
    const answer = await fixture.post(event.body, {
      ...event.headers,
      authorization: 'Bearer should-not-be-stored',
      cookie: 'session=nope',
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ received: true, duplicate: false });
    const inboxId = answer.body.inboxId as number;

    const row = await findInboxEvent(fixture.database.db, inboxId);
    expect(row).toMatchObject({
      dedupeKey: 'event:evt_exactbytes000000000001',
      eventId: 'evt_exactbytes000000000001',
      eventType: 'transfer.updated',
      status: 'received',
    });
    expect(row!.rawBody.equals(Buffer.from(event.body, 'utf8'))).toBe(true);
    expect(row!.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-signature': event.headers['webhook-signature'],
    });
    expect(row!.headers).not.toHaveProperty('authorization');
    expect(row!.headers).not.toHaveProperty('cookie');
    expect(row!.receivedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const job = await fixture.queues.ingest.getJob(`inbox-${inboxId}`);
    expect(job?.data).toEqual({ inboxId });
    expect(await fixture.queues.ingest.count()).toBe(1);
  });

  it('answers 200 to a duplicate delivery and keeps one row and one job', async () => {
    fixture = await startReceiverFixture();
    const event = signedEvent(fixture.config.webhookSecrets[0]!);
    const first = await fixture.post(event.body, event.headers);
    // A retry of the same event is signed again later, with a new timestamp.
    const again = signedEvent(fixture.config.webhookSecrets[0]!, {
      id: event.id,
      body: event.body,
      at: new Date(Date.now() + 2000),
    });
    const second = await fixture.post(again.body, again.headers);
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ received: true, duplicate: true, inboxId: first.body.inboxId });
    expect(await fixture.inboxCount()).toBe(1);
    // One unit of work: a sync batch when the receiver classified the event, else an ingest job.
    expect((await fixture.queues.ingest.count()) + (await fixture.queues.sync.count())).toBe(1);
  });

  it('dedupes an event without any id on the sha256 of its body', async () => {
    fixture = await startReceiverFixture({ env: { PAYSYNC_WEBHOOK_SCHEME: 'none' } });
    const body = JSON.stringify({ type: 'payment.updated', data: { id: 'pi_x' } });
    expect((await fixture.post(body)).status).toBe(202);
    expect((await fixture.post(body)).status).toBe(200);
    expect((await fixture.post(body.replace('pi_x', 'pi_y'))).status).toBe(202);
    expect(await fixture.inboxCount()).toBe(2);
  });

  it('accepts events signed with either secret during a rotation', async () => {
    const [fresh, old] = [newWebhookSecret(), newWebhookSecret()];
    fixture = await startReceiverFixture({ env: { PAYSYNC_WEBHOOK_SECRET: `${fresh},${old}` } });
    expect((await fixture.post(...postArgs(signedEvent(old)))).status).toBe(202);
    expect((await fixture.post(...postArgs(signedEvent(fresh)))).status).toBe(202);
    expect((await fixture.post(...postArgs(signedEvent(newWebhookSecret())))).status).toBe(401);
    expect(await fixture.inboxCount()).toBe(2);
  });

  it('counts signature failures by reason', async () => {
    fixture = await startReceiverFixture();
    const before = {
      bad: await failuresFor('bad_signature'),
      missing: await failuresFor('missing_signature'),
    };
    await fixture.post(...postArgs(signedEvent(newWebhookSecret())));
    await fixture.post(...postArgs(signedEvent(newWebhookSecret())));
    await fixture.post('{"id":"evt_nosig"}');
    expect(await failuresFor('bad_signature')).toBe(before.bad + 2);
    expect(await failuresFor('missing_signature')).toBe(before.missing + 1);
    // The process's scrape (served on the ops port; the receiver's port has no /metrics).
    const text = await metricsRegistry.metrics();
    expect(text).toMatch(/paysync_webhook_signature_failures_total\{reason="bad_signature"\} \d+/);
  });
});

function postArgs(event: {
  body: string;
  headers: Record<string, string>;
}): [string, Record<string, string>] {
  return [event.body, event.headers];
}

describe('receiver: generic HMAC scheme', () => {
  const secret = 'plain-shared-secret-1234';
  const sign = (payload: string, encoding: 'hex' | 'base64') =>
    createHmac('sha256', secret).update(payload).digest(encoding);

  it.each(['hex', 'base64'] as const)(
    'verifies %s signatures over "<timestamp>.<body>"',
    async (encoding) => {
      fixture = await startReceiverFixture({
        env: {
          PAYSYNC_WEBHOOK_SCHEME: 'hmac',
          PAYSYNC_WEBHOOK_SECRET: secret,
          PAYSYNC_WEBHOOK_HMAC_HEADER: 'X-Payment-Signature',
          PAYSYNC_WEBHOOK_HMAC_ENCODING: encoding,
          PAYSYNC_WEBHOOK_HMAC_TIMESTAMP_HEADER: 'X-Payment-Timestamp',
        },
      });
      const body = JSON.stringify({
        id: `evt_${randomBytes(6).toString('hex')}`,
        type: 'transfer.updated',
      });
      const now = String(Math.floor(Date.now() / 1000));
      const good = await fixture.post(body, {
        'x-payment-timestamp': now,
        'x-payment-signature': sign(`${now}.${body}`, encoding),
      });
      expect(good.status).toBe(202);
      // The body alone is not what is signed when a timestamp header is configured.
      const bodyOnly = await fixture.post(body, {
        'x-payment-timestamp': now,
        'x-payment-signature': sign(body, encoding),
      });
      expect(bodyOnly.body).toMatchObject({ error: 'bad_signature' });
      const old = String(Number(now) - 600);
      const stale = await fixture.post(body, {
        'x-payment-timestamp': old,
        'x-payment-signature': sign(`${old}.${body}`, encoding),
      });
      expect(stale).toMatchObject({ status: 401, body: { error: 'stale_timestamp' } });
      const noTimestamp = await fixture.post(body, { 'x-payment-signature': sign(body, encoding) });
      expect(noTimestamp).toMatchObject({ status: 401, body: { error: 'missing_signature' } });
      expect(await fixture.inboxCount()).toBe(1);
      const row = await findInboxEvent(fixture.database.db, good.body.inboxId as number);
      expect(row!.headers).toMatchObject({ 'x-payment-timestamp': now });
    },
  );

  it('verifies the raw body alone without a timestamp header, with a sha256= prefix', async () => {
    fixture = await startReceiverFixture({
      env: { PAYSYNC_WEBHOOK_SCHEME: 'hmac', PAYSYNC_WEBHOOK_SECRET: secret },
    });
    const body = JSON.stringify({ id: 'evt_hmac_plain', type: 'payment.updated' });
    expect((await fixture.post(body, { 'x-signature': sign(body, 'hex') })).status).toBe(202);
    expect(
      (
        await fixture.post(body.replace('plain', 'other'), {
          'x-signature': `sha256=${sign(body.replace('plain', 'other'), 'hex')}`,
        })
      ).status,
    ).toBe(202);
    const short = await fixture.post(body, { 'x-signature': sign(body, 'hex').slice(0, 10) });
    expect(short).toMatchObject({ status: 401, body: { error: 'bad_signature' } });
    const notHex = await fixture.post(body, { 'x-signature': 'not-hex!' });
    expect(notHex).toMatchObject({ status: 401, body: { error: 'malformed_signature' } });
  });
});

describe('receiver: durable before 2xx', () => {
  it('answers 503 when the database write fails, and enqueues nothing', async () => {
    fixture = await startReceiverFixture();
    await sql`drop table webhook_inbox`.execute(fixture.database.db);
    const answer = await fixture.post(...postArgs(signedEvent(fixture.config.webhookSecrets[0]!)));
    expect(answer).toMatchObject({ status: 503, body: { error: 'inbox_unavailable' } });
    expect(await fixture.queues.ingest.count()).toBe(0);
    expect(await fixture.queues.sync.count()).toBe(0);
  });

  it('still answers 2xx, without waiting for Redis, with the row stored when Redis is down', async () => {
    const port = await closedPort();
    fixture = await startReceiverFixture({ redisUrl: `redis://127.0.0.1:${port}` });
    const event = signedEvent(fixture.config.webhookSecrets[0]!);
    const answer = await fixture.post(event.body, event.headers);
    expect(answer).toMatchObject({ status: 202, body: { received: true, duplicate: false } });
    // The outage must not hold the sender: the answer came while Redis never once answered, and
    // the row waits for the recovery sweep instead of an enqueue.
    expect(fixture.redis.status).not.toBe('ready');
    const row = await findInboxEvent(fixture.database.db, answer.body.inboxId as number);
    expect(row?.status).toBe('received');
    expect(row?.eventId).toBe(event.id);
  });
});
