import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { loadConfig, type Config } from '../../../src/config/index.ts';
import { createLogger, type Logger } from '../../../src/logger.ts';
import { createQueues, createRedisConnection, type Queues } from '../../../src/queues/index.ts';
import { createReceiverServer, type ReceiverServer } from '../../../src/receiver/index.ts';
import { freshDatabase, type TestDatabase } from '../../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../support/test-redis.ts';

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export interface ReceiverFixture {
  readonly url: string;
  readonly config: Config;
  readonly database: TestDatabase;
  readonly queues: Queues;
  readonly redis: Redis;
  readonly server: ReceiverServer;
  /** POSTs to the webhook path; body as given (string or bytes), JSON content type unless told. */
  post(body: string | Buffer, headers?: Record<string, string>): Promise<WebhookAnswer>;
  inboxCount(): Promise<number>;
  cleanup(): Promise<void>;
}

export interface WebhookAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export interface FixtureOptions {
  /** PAYSYNC_* variables on top of a signing secret and a 4 KB cap. */
  readonly env?: Record<string, string>;
  /** Point the producer at this Redis URL (a closed port simulates an outage). */
  readonly redisUrl?: string;
  readonly logger?: Logger;
  /** The receiver's clock. @defaultValue the machine's */
  readonly now?: () => Date;
}

/** A real receiver on port 0 over a fresh migrated database and a unique Redis prefix. */
export async function startReceiverFixture(options: FixtureOptions = {}): Promise<ReceiverFixture> {
  const config = loadConfig({
    PAYSYNC_WEBHOOK_SECRET: newWebhookSecret(),
    PAYSYNC_WEBHOOK_MAX_BYTES: '4096',
    ...options.env,
  });
  const database = await freshDatabase();
  const redis = createRedisConnection(options.redisUrl ?? TEST_REDIS_URL, 'producer');
  const prefix = uniqueRedisPrefix('receiver');
  const queues = createQueues({ connection: redis, prefix });
  const logger = options.logger ?? createLogger({ level: 'silent', pretty: false });
  const server = createReceiverServer({
    db: database.db,
    queues,
    redis,
    config,
    logger,
    now: options.now ?? (() => new Date()),
    port: 0,
    host: '127.0.0.1',
  });
  if (options.redisUrl === undefined && redis.status !== 'ready') {
    await new Promise((resolve) => redis.once('ready', resolve));
  }
  await server.start();
  const url = server.url;
  return {
    url,
    config,
    database,
    queues,
    redis,
    server,
    async post(body, headers = {}) {
      const response = await fetch(`${url}${config.webhook.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      };
    },
    async inboxCount() {
      const row = await database.db
        .selectFrom('webhook_inbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async cleanup() {
      await server.stop();
      await queues.close();
      redis.disconnect();
      await database.cleanup();
      if (options.redisUrl === undefined) await deleteRedisPrefix(prefix);
    },
  };
}

/** A Standard Webhooks event the way the simulator sends it: body, and the three headers. */
export function signedEvent(
  secret: string,
  options: { id?: string; type?: string; at?: Date; body?: string } = {},
): { body: string; headers: Record<string, string>; id: string } {
  const id = options.id ?? `evt_${randomBytes(12).toString('hex')}`;
  const at = options.at ?? new Date();
  const body =
    options.body ??
    JSON.stringify({
      id,
      type: options.type ?? 'transfer.updated',
      createdAt: at.toISOString(),
      mode: 'sandbox',
      data: { object: { id: 'tr_abcdefghijklmnopqrstuvwx', status: 'successful' } },
    });
  return {
    id,
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    },
  };
}
