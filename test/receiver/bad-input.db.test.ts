import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  signedEvent,
  startReceiverFixture,
  type ReceiverFixture,
} from './support/receiver-fixture.ts';

interface BadInput {
  readonly name: string;
  /** Builds the request from the fixture's secret. */
  readonly request: (secret: string) => { body: string | Buffer; headers: Record<string, string> };
  readonly status: number;
  readonly error: string;
}

const otherSecret = `whsec_${randomBytes(24).toString('base64')}`;

/** Acceptance 4: each bad input has its documented status and leaves the inbox unchanged. */
const badInputs: BadInput[] = [
  {
    name: 'missing signature',
    request: (secret) => {
      const { body, headers } = signedEvent(secret);
      return {
        body,
        headers: {
          'webhook-id': headers['webhook-id']!,
          'webhook-timestamp': headers['webhook-timestamp']!,
        },
      };
    },
    status: 401,
    error: 'missing_signature',
  },
  {
    name: 'bad signature (signed with another secret)',
    request: () => signedEvent(otherSecret),
    status: 401,
    error: 'bad_signature',
  },
  {
    name: 'bad signature (body changed after signing)',
    request: (secret) => {
      const event = signedEvent(secret);
      return { ...event, body: event.body.replace('successful', 'failed') };
    },
    status: 401,
    error: 'bad_signature',
  },
  {
    name: 'stale signature (10 minutes old)',
    request: (secret) => signedEvent(secret, { at: new Date(Date.now() - 10 * 60_000) }),
    status: 401,
    error: 'stale_timestamp',
  },
  {
    name: 'signature from the future (10 minutes ahead)',
    request: (secret) => signedEvent(secret, { at: new Date(Date.now() + 10 * 60_000) }),
    status: 401,
    error: 'stale_timestamp',
  },
  {
    name: 'short signature',
    request: (secret) => {
      const event = signedEvent(secret);
      const short = event.headers['webhook-signature']!.slice(0, 12);
      return { ...event, headers: { ...event.headers, 'webhook-signature': short } };
    },
    status: 401,
    error: 'bad_signature',
  },
  {
    name: 'malformed signature',
    request: (secret) => {
      const event = signedEvent(secret);
      return { ...event, headers: { ...event.headers, 'webhook-signature': 'sha256=zz!' } };
    },
    status: 401,
    error: 'malformed_signature',
  },
  {
    name: 'oversize body (over the 4 KB cap)',
    request: (secret) =>
      signedEvent(secret, { body: JSON.stringify({ id: 'evt_big', pad: 'x'.repeat(5000) }) }),
    status: 413,
    error: 'payload_too_large',
  },
  {
    name: 'wrong content type',
    request: (secret) => {
      const event = signedEvent(secret);
      return { ...event, headers: { ...event.headers, 'content-type': 'text/plain' } };
    },
    status: 415,
    error: 'unsupported_media_type',
  },
  {
    name: 'empty body',
    request: (secret) => signedEvent(secret, { body: '' }),
    status: 400,
    error: 'empty_body',
  },
  {
    name: 'invalid JSON (correctly signed)',
    request: (secret) => signedEvent(secret, { body: '{"id":"evt_1","type":' }),
    status: 400,
    error: 'invalid_json',
  },
];

describe('receiver: bad input changes nothing', () => {
  let fixture: ReceiverFixture;
  beforeAll(async () => {
    fixture = await startReceiverFixture();
  });
  afterAll(async () => {
    await fixture?.cleanup();
  });

  it.each(badInputs)('$name → $status $error', async ({ request, status, error }) => {
    const { body, headers } = request(fixture.config.webhookSecrets[0]!);
    const before = { rows: await fixture.inboxCount(), jobs: await fixture.queues.ingest.count() };
    const answer = await fixture.post(body, headers);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ error });
    expect(typeof answer.body.message).toBe('string');
    expect(await fixture.inboxCount()).toBe(before.rows);
    expect(await fixture.queues.ingest.count()).toBe(before.jobs);
  });

  it('the same request, correctly signed, is accepted (so the cases above test what they name)', async () => {
    const { body, headers } = signedEvent(fixture.config.webhookSecrets[0]!);
    const before = await fixture.inboxCount();
    expect((await fixture.post(body, headers)).status).toBe(202);
    expect(await fixture.inboxCount()).toBe(before + 1);
  });

  it('never echoes the secret or the expected signature in a refusal', async () => {
    const secret = fixture.config.webhookSecrets[0]!;
    const event = signedEvent(otherSecret);
    const answer = await fixture.post(event.body, event.headers);
    const expected = signedEvent(secret, { id: event.id, body: event.body }).headers[
      'webhook-signature'
    ]!;
    expect(JSON.stringify(answer.body)).not.toContain(secret.slice(6, 20));
    expect(JSON.stringify(answer.body)).not.toContain(expected.slice(3));
  });

  it('answers 405 with Allow: POST to other methods on the webhook path', async () => {
    const response = await fetch(`${fixture.url}/webhooks`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
