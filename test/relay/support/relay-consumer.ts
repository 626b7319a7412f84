import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** How the consumer answers one request. */
export type ConsumerAnswer = 200 | 500 | 410 | 'hang';

export interface ReceivedEvent {
  readonly id: string;
  readonly type: string;
  readonly subject: unknown;
  readonly body: Record<string, unknown>;
  /** The bytes as received. */
  readonly raw: string;
}

/**
 * A merchant's receiving endpoint, the way docs/relay.md tells one to be written: every request
 * is verified with the `standardwebhooks` package against the endpoint's secret(s), then
 * deduplicated by `webhook-id`. It answers as `answer()` says (200, 500, 410, or hangs).
 */
export interface RelayConsumer {
  readonly url: string;
  /** First copies, in arrival order. */
  readonly events: ReceivedEvent[];
  /** Requests in all, duplicates and refused ones included. */
  requests: number;
  duplicates: number;
  /** Requests whose signature did not verify with any secret. */
  badSignatures: number;
  /** The `webhook-signature` headers, in order. */
  readonly signatures: string[];
  /** Which of `secrets` verified each request, by index. */
  readonly verifiedWith: number[][];
  /** Requests being handled now, and the most there ever were at once per webhook-id. */
  maxConcurrentPerId: number;
  answer: (request: number, body: Record<string, unknown>) => ConsumerAnswer;
  secrets: string[];
  close(): Promise<void>;
}

/**
 * The package's verifier, with the five-minute timestamp tolerance measured against `clock`:
 * the tests move paysync's clock by hours and days, and the consumer lives in the same time.
 */
export function verifier(secret: string, clock: () => Date): Webhook {
  const webhook = new Webhook(secret);
  (webhook as unknown as { verifyTimestamp(header: string): Date }).verifyTimestamp = (header) => {
    const at = Number(header);
    if (!Number.isInteger(at)) throw new Error('Invalid Signature Headers');
    if (Math.abs(clock().getTime() / 1000 - at) > 5 * 60)
      throw new Error('Message timestamp too old or new');
    return new Date(at * 1000);
  };
  return webhook;
}

export async function startRelayConsumer(
  secrets: string[],
  answer: (request: number, body: Record<string, unknown>) => ConsumerAnswer = () => 200,
  clock: () => Date = () => new Date(),
): Promise<RelayConsumer> {
  const seen = new Set<string>();
  const active = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const consumer: RelayConsumer = {
    url: '',
    events: [],
    requests: 0,
    duplicates: 0,
    badSignatures: 0,
    signatures: [],
    verifiedWith: [],
    maxConcurrentPerId: 0,
    answer,
    secrets,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const number = ++consumer.requests;
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    consumer.signatures.push(headers['webhook-signature']);
    const verified: number[] = [];
    for (const [index, secret] of consumer.secrets.entries()) {
      try {
        verifier(secret, clock).verify(body, headers);
        verified.push(index);
      } catch {
        // not this secret
      }
    }
    consumer.verifiedWith.push(verified);
    if (verified.length === 0) {
      consumer.badSignatures += 1;
      response.writeHead(400).end('bad signature');
      return;
    }
    const id = headers['webhook-id'];
    const now = (active.get(id) ?? 0) + 1;
    active.set(id, now);
    consumer.maxConcurrentPerId = Math.max(consumer.maxConcurrentPerId, now);
    const release = () => active.set(id, (active.get(id) ?? 1) - 1);
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const decision = consumer.answer(number, parsed);
    if (decision === 'hang') {
      hanging.add(response);
      response.on('close', () => {
        hanging.delete(response);
        release();
      });
      return;
    }
    // A little work, so overlapping deliveries of one id would show.
    await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    if (decision !== 200) {
      response.writeHead(decision).end(decision === 410 ? 'gone' : 'x'.repeat(4000));
      return;
    }
    if (seen.has(id)) {
      consumer.duplicates += 1;
    } else {
      seen.add(id);
      consumer.events.push({
        id,
        type: String(parsed.type),
        subject: (parsed.data as Record<string, unknown>).subject,
        body: parsed,
        raw: body,
      });
    }
    response.writeHead(200).end('ok');
  };
  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  (consumer as { url: string }).url = `http://127.0.0.1:${port}/hooks`;
  return consumer;
}
