/**
 * The chaos run's relay consumer (issue 23): a merchant's endpoint as docs/relay.md tells one to
 * be written, made unreliable on purpose. A real HTTP server in the chaos runner's process that
 * verifies every POST with the `standardwebhooks` package against the endpoint's secret,
 * answers 500 to a random share of the deliveries, can be taken DOWN (its server closed, so
 * connections are refused) and brought back on the same port, and records every accepted event
 * by `webhook-id`, once (later copies are counted as duplicates: the relay is at least once),
 * with its type, its subject and its order of arrival.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { RELAYED_ITEM_KINDS } from '../../../src/relay/index.ts';

/** One event the consumer accepted (2xx), as it first arrived. */
export interface ConsumedEvent {
  /** `webhook-id`, the event's `evt_…` id. */
  readonly id: string;
  readonly type: string;
  /** The item the event is about, as the relay orders it (`transfer:tr_…`, `day:…`); null: none. */
  readonly subject: string | null;
  /** The event's `data` (a day's `day`, an alert's `alertId`, …). */
  readonly data: Record<string, unknown>;
  /** 1 for the first event accepted, 2 for the next, … */
  readonly arrival: number;
}

export interface ConsumerFigures {
  /** POSTs in all: accepted, answered 500, refused for a bad signature. */
  readonly requests: number;
  /** Distinct events accepted. */
  readonly events: number;
  /** Accepted copies of an event already held (allowed: at least once). */
  readonly duplicates: number;
  /** Deliveries answered 500 on purpose. */
  readonly answered500: number;
  /** POSTs whose signature did not verify (must stay 0). */
  readonly badSignatures: number;
  /** POSTs whose body `id` was not their `webhook-id` (must stay 0). */
  readonly mismatchedIds: number;
  /** How long the consumer was down, in all (ms). */
  readonly downMs: number;
}

export interface ChaosRelayConsumer {
  readonly port: number;
  /** The URL to register: `http://127.0.0.1:<port>/relay`. */
  readonly url: string;
  /** The endpoint's `whsec_…` secret, known once the endpoint is added. */
  setSecret(secret: string): void;
  /** Closes the server: deliveries meet a refused connection until {@link up}. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  isDown(): boolean;
  /** Accepted events by `webhook-id`. */
  readonly events: ReadonlyMap<string, ConsumedEvent>;
  figures(): ConsumerFigures;
  close(): Promise<void>;
}

/** The subject the relay orders an event by, from its message alone. */
export function subjectOf(type: string, data: Record<string, unknown>): string | null {
  const kind = type.slice(0, type.lastIndexOf('.'));
  if ((RELAYED_ITEM_KINDS as readonly string[]).includes(kind)) return `${kind}:${String(data.id)}`;
  if (type === 'day.verdict') return `day:${String(data.day)}`;
  if (type.startsWith('balance.'))
    return `balance:${String(data.accountType)}:${String(data.currency)}`;
  return null;
}

export async function startChaosRelayConsumer(options: {
  /** The port to listen on (it is reused after a down stretch). */
  readonly port: number;
  /** The share of deliveries answered 500, [0, 1). */
  readonly failRate: number;
  readonly random?: () => number;
}): Promise<ChaosRelayConsumer> {
  const random = options.random ?? Math.random;
  const events = new Map<string, ConsumedEvent>();
  let webhook: Webhook | undefined;
  let requests = 0;
  let duplicates = 0;
  let answered500 = 0;
  let badSignatures = 0;
  let mismatchedIds = 0;
  let downMs = 0;
  let downSince: number | undefined;
  let server: Server | undefined;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    requests += 1;
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    let message: { id?: unknown; type?: unknown; data?: unknown };
    try {
      if (!webhook) throw new Error('no secret yet');
      // The raw body, as received: checks the signature and the timestamp's 5-minute window.
      message = webhook.verify(body, headers) as typeof message;
    } catch {
      badSignatures += 1;
      response.writeHead(401).end('bad signature');
      return;
    }
    if (random() < options.failRate) {
      answered500 += 1;
      response.writeHead(500).end('chaos: try again later');
      return;
    }
    const id = headers['webhook-id'];
    if (message.id !== id) mismatchedIds += 1;
    if (events.has(id)) {
      duplicates += 1;
    } else {
      const type = String(message.type);
      const data = (message.data ?? {}) as Record<string, unknown>;
      events.set(id, {
        id,
        type,
        subject: subjectOf(type, data),
        data,
        arrival: events.size + 1,
      });
    }
    response.writeHead(204).end();
  };

  const listen = async () => {
    const fresh = createServer((request, response) => {
      handle(request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      fresh.once('error', reject);
      fresh.listen(options.port, '127.0.0.1', () => {
        fresh.off('error', reject);
        resolve();
      });
    });
    server = fresh;
  };
  const shut = async () => {
    const current = server;
    if (!current) return;
    server = undefined;
    const closed = new Promise<void>((resolve) => current.close(() => resolve()));
    // Keep-alive sockets too: a refused connection for every delivery from now on.
    current.closeAllConnections();
    await closed;
  };

  await listen();
  return {
    port: options.port,
    url: `http://127.0.0.1:${options.port}/relay`,
    setSecret(secret) {
      webhook = new Webhook(secret);
    },
    async down() {
      if (!server) return;
      await shut();
      downSince = Date.now();
    },
    async up() {
      if (server) return;
      await listen();
      if (downSince !== undefined) downMs += Date.now() - downSince;
      downSince = undefined;
    },
    isDown: () => server === undefined,
    events,
    figures: () => ({
      requests,
      events: events.size,
      duplicates,
      answered500,
      badSignatures,
      mismatchedIds,
      downMs: downMs + (downSince === undefined ? 0 : Date.now() - downSince),
    }),
    close: shut,
  };
}
