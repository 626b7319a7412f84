import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthThrottle,
  createOpsRouter,
  createOpsServer,
  OPS_ROUTES,
  type OpsServer,
} from '../../src/ops/index.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import {
  deliveriesOf,
  seedDelivery,
  seedRelayEvent,
  startConsumer,
} from '../support/relay-endpoint-rows.ts';
import { opsDocument, validateAnswer } from './support/openapi-validator.ts';

const TOKEN = 'endpoints-token-5d2c19a7';
const HOSTILE_EXCERPT = '<script>document.title="pwned"</script><b>bold</b>';

/** The JSON answers these tests read: a loose view, since the OpenAPI check does the typing. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let database: TestDatabase;
let server: OpsServer;
let consumer: Awaited<ReturnType<typeof startConsumer>>;
const logged: string[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  consumer = await startConsumer(() => ({ status: 200, body: 'ok' }));
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  server = createOpsServer({
    routes: createOpsRouter({
      db: database.db,
      logger,
      now: () => new Date(),
      tokens: [TOKEN],
      environment: 'sandbox',
      timeZone: 'UTC',
      relay: { allowHttp: false, allowedHosts: [], timeoutMs: 5_000 },
      // These tests try wrong tokens on every route from one address; the throttle has tests
      // of its own (ops-security.db.test.ts).
      throttle: new AuthThrottle(logger, 10_000),
    }),
    port: 0,
    host: '127.0.0.1',
    logger,
  });
  await server.start();
});
afterAll(async () => {
  await server?.stop();
  await consumer?.close();
  await database?.cleanup();
});

async function call(
  method: string,
  path: string,
  options: { body?: unknown; token?: string | null } = {},
): Promise<{ status: number; body: Json; template: string }> {
  const token = options.token === undefined ? TOKEN : options.token;
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const template = path
    .split('?')[0]!
    .replace(/\/ep_[0-9a-f]{20}/, '/{id}')
    .replace(/\/endpoints\/[^/]+(?=\/|$)/, (segment) =>
      segment === '/endpoints/pending' ? segment : '/endpoints/{id}',
    );
  return { status: response.status, body: (await response.json()) as Json, template };
}

/** Calls a route and checks the answer against the OpenAPI document. */
async function documented(
  method: string,
  path: string,
  options: { body?: unknown; token?: string | null } = {},
) {
  const answer = await call(method, path, options);
  expect(validateAnswer(answer.template, method.toLowerCase(), answer.status, answer.body)).toEqual(
    [],
  );
  return answer;
}

describe('/api/v1/endpoints', () => {
  let id: string;
  let secret: string;
  const secrets: string[] = [];
  const answers: string[] = [];

  it('refuses every endpoints route without the token or with a wrong one, changing nothing', async () => {
    const routes = OPS_ROUTES.filter((route) => route.tag === 'endpoints');
    // 11 operations, and the deprecated former path of redeliver (…/replay).
    expect(routes.map((route) => `${route.method} ${route.path}`)).toHaveLength(12);
    for (const route of routes) {
      for (const token of [null, 'wrong-token']) {
        const answer = await documented(
          route.method.toUpperCase(),
          route.path.replace('{id}', 'ep_0123456789abcdef0123'),
          { token, ...(route.body ? { body: { url: 'https://a.example/h' } } : {}) },
        );
        expect(answer.status, `${route.method} ${route.path}`).toBe(401);
      }
    }
    expect(await database.db.selectFrom('relay_endpoints').select('id').execute()).toEqual([]);
  });

  it('adds an endpoint (201) and answers its secret this once', async () => {
    const added = await documented('POST', '/api/v1/endpoints', {
      body: { url: consumer.url, events: ['transfer.*'], description: 'shop' },
    });
    expect(added.status).toBe(201);
    expect(added.body.data.endpoint).toMatchObject({
      url: consumer.url,
      events: ['transfer.*'],
      status: 'enabled',
    });
    id = added.body.data.endpoint.id;
    secret = added.body.data.secret;
    secrets.push(secret);
    expect(secret).toMatch(/^whsec_/);
  });

  it('refuses a bad body with 400 naming the field, and nothing is added', async () => {
    const cases: [unknown, string][] = [
      [{ url: 'ftp://a.example/h' }, 'url must be an https:// address'],
      [{ url: 'https://a.example/h', events: ['nope'] }, 'events: "nope" is not an event type'],
      [{ url: 'https://a.example/h', secret: 'mine' }, 'body: unknown field(s) secret'],
      [{}, 'url:'],
    ];
    for (const [body, message] of cases) {
      const answer = await documented('POST', '/api/v1/endpoints', { body });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('bad_parameter');
      expect(answer.body.error.message).toContain(message);
    }
    expect(await database.db.selectFrom('relay_endpoints').select('id').execute()).toHaveLength(1);
  });

  it('lists and shows the endpoint with its health and attempts, never a secret', async () => {
    const event = await seedRelayEvent(database.db, {
      type: 'transfer.succeeded',
      subject: 'transfer:tr_api1',
      createdAt: new Date(Date.now() - 600_000).toISOString(),
    });
    await seedDelivery(database.db, {
      endpointId: id,
      event,
      state: 'pending',
      at: new Date(Date.now() - 60_000).toISOString(),
      attempt: { outcome: 'failed', statusCode: 500, excerpt: HOSTILE_EXCERPT },
    });
    const list = await documented('GET', '/api/v1/endpoints');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].health).toMatchObject({ state: 'healthy', pending: 1 });
    const show = await documented('GET', `/api/v1/endpoints/${id}`);
    expect(show.body.data.attempts[0]).toMatchObject({
      eventId: event.eventId,
      outcome: 'failed',
      statusCode: 500,
      excerpt: HOSTILE_EXCERPT,
    });
    const deliveries = await documented('GET', `/api/v1/endpoints/${id}/deliveries?limit=1`);
    expect(deliveries.body).toMatchObject({ data: [{ eventId: event.eventId }], nextCursor: null });
    const pending = await documented('GET', `/api/v1/endpoints/pending?endpoint=${id}`);
    expect(pending.body.data).toEqual([
      expect.objectContaining({ endpoint: id, eventId: event.eventId, state: 'pending' }),
    ]);
    answers.push(JSON.stringify([list.body, show.body, deliveries.body, pending.body]));
  });

  it('answers 404 for an unknown endpoint and 400 for a malformed id', async () => {
    const unknown = await documented('GET', '/api/v1/endpoints/ep_00000000000000000000');
    expect(unknown.status).toBe(404);
    // Worded for the API: no `paysync endpoints list` (a CLI command) in its answer.
    expect(unknown.body.error).toEqual({
      code: 'not_found',
      message: 'no endpoint ep_00000000000000000000; GET /api/v1/endpoints lists them',
    });
    const malformed = await call('POST', '/api/v1/endpoints/tr_1/disable');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/^id: must be an endpoint id/);
  });

  it('tests the endpoint: a ping the consumer verifies with standardwebhooks', async () => {
    const answer = await documented('POST', `/api/v1/endpoints/${id}/test`);
    expect(answer.body.data).toMatchObject({
      outcome: 'delivered',
      statusCode: 200,
      excerpt: 'ok',
    });
    const request = consumer.received.at(-1)!;
    expect(
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>),
    ).toMatchObject({ type: 'ping', id: answer.body.data.eventId });
  });

  it('disables, enables, rotates the secret (answered once) and redelivers', async () => {
    const disabled = await documented('POST', `/api/v1/endpoints/${id}/disable`);
    expect(disabled.body.data).toMatchObject({ status: 'disabled', disabledReason: 'operator' });
    const enabled = await documented('POST', `/api/v1/endpoints/${id}/enable`);
    expect(enabled.body.data).toMatchObject({ endpoint: { status: 'enabled' }, pending: 1 });
    const rotated = await documented('POST', `/api/v1/endpoints/${id}/rotate-secret`);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    secrets.push(rotated.body.data.secret);

    const later = await seedRelayEvent(database.db, {
      type: 'transfer.failed',
      subject: 'transfer:tr_api2',
      createdAt: new Date(Date.now() - 300_000).toISOString(),
    });
    const redelivered = await documented('POST', `/api/v1/endpoints/${id}/redeliver`, {
      body: { since: new Date(Date.now() - 3_600_000).toISOString(), types: ['transfer.*'] },
    });
    expect(redelivered.body.data).toEqual({
      matched: 2,
      created: 1,
      reset: 0,
      alreadyPending: 1,
      endpointEnabled: true,
    });
    expect((await deliveriesOf(database.db, id)).map((d) => d.eventId).at(-1)).toBe(later.eventId);
    const one = await documented('POST', `/api/v1/endpoints/${id}/redeliver`, {
      body: { event: later.eventId },
    });
    expect(one.body.data).toMatchObject({ matched: 1, alreadyPending: 1 });
    const both = await documented('POST', `/api/v1/endpoints/${id}/redeliver`, {
      body: { since: new Date().toISOString(), event: later.eventId },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain('give exactly one of since or event');
    answers.push(JSON.stringify([disabled.body, enabled.body, redelivered.body]));
  });

  it('the former path /endpoints/{id}/replay still answers as redeliver does (deprecated)', async () => {
    const fresh = await seedRelayEvent(database.db, {
      type: 'transfer.succeeded',
      subject: 'transfer:tr_api3',
      createdAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const queued = await documented('POST', `/api/v1/endpoints/${id}/replay`, {
      body: { event: fresh.eventId },
    });
    expect(queued.status).toBe(200);
    expect(queued.body.data).toEqual({
      matched: 1,
      created: 1,
      reset: 0,
      alreadyPending: 0,
      endpointEnabled: true,
    });
    expect((await deliveriesOf(database.db, id)).map((d) => d.eventId).at(-1)).toBe(fresh.eventId);
    const again = await documented('POST', `/api/v1/endpoints/${id}/replay`, {
      body: { event: fresh.eventId },
    });
    expect(again.body.data).toMatchObject({ matched: 1, created: 0, alreadyPending: 1 });
    const both = await documented('POST', `/api/v1/endpoints/${id}/replay`, {
      body: { since: new Date().toISOString(), event: fresh.eventId },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain('give exactly one of since or event');
    const unknown = await documented('POST', `/api/v1/endpoints/ep_00000000000000000000/replay`, {
      body: { event: fresh.eventId },
    });
    expect(unknown.status).toBe(404);
    const paths = opsDocument.paths as Record<string, Record<string, { deprecated?: boolean }>>;
    expect(paths['/api/v1/endpoints/{id}/replay']!.post!.deprecated).toBe(true);
    expect(paths['/api/v1/endpoints/{id}/redeliver']!.post!.deprecated).toBeUndefined();
  });

  it('the dashboard page shows the endpoint and its hostile excerpt as text', async () => {
    const response = await fetch(`${server.url}/endpoints`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain(`data-endpoint="${id}"`);
    expect(page).not.toContain('<script>document.title');
    expect(page).toContain('&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;');
    answers.push(page);
  });

  it('deletes the endpoint; then it is unknown; no secret was ever in a later answer or a log', async () => {
    const deleted = await documented('DELETE', `/api/v1/endpoints/${id}`);
    expect(deleted.body.data.deleted).toMatchObject({ id });
    expect((await documented('DELETE', `/api/v1/endpoints/${id}`)).status).toBe(404);
    const list = await documented('GET', '/api/v1/endpoints');
    expect(list.body.data).toEqual([]);
    answers.push(JSON.stringify(deleted.body));
    const seen = answers.join('\n') + logged.join('\n');
    for (const each of secrets) expect(seen).not.toContain(each);
    expect(seen).not.toContain('whsec_');
  });
});
