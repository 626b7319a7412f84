import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createQueues, createRedisConnection, type Queues } from '../../src/queues/index.ts';
import {
  AuthThrottle,
  createOpsRouter,
  createOpsServer,
  DashboardSessions,
  type OpsServer,
} from '../../src/ops/index.ts';
import { createMetricsServer, metricsRegistry } from '../../src/metrics/index.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';

/**
 * Issue 38: the ops port's doors. Failed authentications throttled per client address,
 * sessions that end, bull-board behind the dashboard's rules, and `/metrics` behind a token
 * when the port is open beyond loopback. Plain HTTP against a real ops server over a fresh
 * database and real queues.
 */
const TOKEN = 'ops-security-token-7f3a9c2e41d84b6a';
/** Every line logged, to check what the throttle says (and never says). */
const logged: string[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });

let database: TestDatabase;
let redis: Redis;
let queues: Queues;
let prefix: string;
const servers: OpsServer[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  prefix = uniqueRedisPrefix('ops-security');
  redis = createRedisConnection(TEST_REDIS_URL, 'worker');
  queues = createQueues({ connection: redis, prefix });
  await queues.waitUntilReady();
});
afterAll(async () => {
  for (const server of servers) await server.stop();
  await queues?.close();
  await redis?.quit();
  await deleteRedisPrefix(prefix);
  await database?.cleanup();
});

/** A fresh ops server: its own throttle, its own sessions (clock `now`). */
async function opsServer(
  options: {
    secureCookie?: boolean;
    now?: () => Date;
    metricsTokens?: readonly string[];
    queueBoardActions?: boolean;
  } = {},
): Promise<OpsServer> {
  const throttle = new AuthThrottle(logger);
  const now = options.now ?? (() => new Date());
  const server = createOpsServer({
    routes: createOpsRouter({
      db: database.db,
      logger,
      now,
      tokens: [TOKEN],
      environment: 'sandbox',
      timeZone: 'UTC',
      queues,
      throttle,
      sessions: new DashboardSessions({ idleMs: 30 * 60_000, maxMs: 12 * 3_600_000, now }),
      ...(options.secureCookie ? { secureCookie: true } : {}),
      ...(options.queueBoardActions ? { queueBoardActions: true } : {}),
    }),
    port: 0,
    host: '127.0.0.1',
    logger,
    throttle,
    ...(options.metricsTokens ? { metricsTokens: options.metricsTokens } : {}),
  });
  await server.start();
  servers.push(server);
  return server;
}

const login = (server: OpsServer, token: string) =>
  fetch(`${server.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });

/** `name=value` of a Set-Cookie header. */
const cookiePair = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!;

async function throttledCount(surface: string): Promise<number> {
  const text = await metricsRegistry.metrics();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`paysync_auth_throttled_total{surface="${surface}"}`));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('failed authentications are throttled per client address', () => {
  it('the 6th wrong login within a minute gets 429 with Retry-After, counted, and then even the right token waits', async () => {
    const server = await opsServer();
    const before = await throttledCount('dashboard');
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      expect((await login(server, `wrong-${attempt}`)).status, `attempt ${attempt}`).toBe(401);
    }
    const sixth = await login(server, 'wrong-6');
    expect(sixth.status).toBe(429);
    const retryAfter = Number(sixth.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(sixth.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await login(server, TOKEN)).status).toBe(429);
    expect(await throttledCount('dashboard')).toBe(before + 2);
    // Logged once for the window, with the address, never with a token tried.
    const lines = logged.filter((line) => line.includes('failed authentications from'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('5 failed authentications from 127.0.0.1 within 60 s');
    expect(logged.join('')).not.toMatch(/wrong-\d|ops-security-token/);
  });

  it('wrong bearer tokens on the API are throttled the same way; a right token alone is never counted', async () => {
    const server = await opsServer();
    const call = (token: string) =>
      fetch(`${server.url}/api/v1/transfers`, { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 10; i += 1) expect((await call(TOKEN)).status).toBe(200);
    for (let i = 0; i < 5; i += 1) expect((await call('guess')).status).toBe(401);
    const refused = await call('guess');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('dashboard sessions', () => {
  it('logout ends the session: the old cookie opens nothing any more', async () => {
    const server = await opsServer();
    const answer = await login(server, TOKEN);
    expect(answer.status).toBe(303);
    const cookie = cookiePair(answer);
    expect(cookie).toMatch(/^paysync_ops=/);
    expect(cookie).not.toContain(TOKEN);
    expect(answer.headers.get('set-cookie')).not.toContain('Secure');
    const home = await fetch(`${server.url}/`, { headers: { cookie } });
    expect(home.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await home.text())![1]!;
    const out = await fetch(`${server.url}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(out.status).toBe(303);
    expect((await fetch(`${server.url}/`, { headers: { cookie } })).status).toBe(401);
  });

  it('a session ends after 30 idle minutes, and 12 hours after its login however busy', async () => {
    let at = Date.parse('2026-11-28T08:00:00.000Z');
    const server = await opsServer({ now: () => new Date(at) });
    const idle = cookiePair(await login(server, TOKEN));
    at += 31 * 60_000;
    expect((await fetch(`${server.url}/`, { headers: { cookie: idle } })).status).toBe(401);
    const busy = cookiePair(await login(server, TOKEN));
    for (let minutes = 20; minutes <= 12 * 60; minutes += 20) {
      at += 20 * 60_000;
      const page = await fetch(`${server.url}/pipeline`, { headers: { cookie: busy } });
      expect(page.status, `after ${minutes} minutes`).toBe(200);
    }
    at += 60_000;
    expect((await fetch(`${server.url}/`, { headers: { cookie: busy } })).status).toBe(401);
  }, 60_000);

  it('behind https the cookie is Secure and named with the __Host- prefix', async () => {
    const server = await opsServer({ secureCookie: true });
    const answer = await login(server, TOKEN);
    const header = answer.headers.get('set-cookie')!;
    expect(header).toMatch(/^__Host-paysync_ops=/);
    expect(header).toContain('; Secure');
    expect(header).toContain('Path=/');
    expect(header).not.toContain('Domain');
    const cookie = cookiePair(answer);
    expect((await fetch(`${server.url}/`, { headers: { cookie } })).status).toBe(200);
    // The plain name opens nothing here.
    const plain = cookie.replace('__Host-paysync_ops', 'paysync_ops');
    expect((await fetch(`${server.url}/`, { headers: { cookie: plain } })).status).toBe(401);
  });
});

describe('bull-board behind the dashboard rules', () => {
  it('is read-only by default: a session cannot pause a queue nor add a job, text/plain or not', async () => {
    const server = await opsServer();
    const cookie = cookiePair(await login(server, TOKEN));
    const pause = await fetch(`${server.url}/admin/queues/api/queues/ingest/pause`, {
      method: 'PUT',
      headers: { cookie },
    });
    expect(pause.status).toBe(403);
    const add = await fetch(`${server.url}/admin/queues/api/queues/ingest/add`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'text/plain' },
      body: '{"name":"x","data":{}}',
    });
    expect(add.status).toBe(403);
    // Even from the board's own page, a read-only board refuses the action.
    const sameOrigin = await fetch(`${server.url}/admin/queues/api/queues/ingest/pause`, {
      method: 'PUT',
      headers: { cookie, 'sec-fetch-site': 'same-origin' },
    });
    expect(sameOrigin.status).toBe(405);
    expect(await queues.ingest.isPaused()).toBe(false);
    expect(await queues.ingest.count()).toBe(0);
  });

  it('with its actions opened, still wants a same-origin request or the CSRF token', async () => {
    const server = await opsServer({ queueBoardActions: true });
    const cookie = cookiePair(await login(server, TOKEN));
    const forged = await fetch(`${server.url}/admin/queues/api/queues/sync/pause`, {
      method: 'PUT',
      headers: { cookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(forged.status).toBe(403);
    expect(await queues.sync.isPaused()).toBe(false);
    const home = await (await fetch(`${server.url}/`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(home)![1]!;
    const paused = await fetch(`${server.url}/admin/queues/api/queues/sync/pause`, {
      method: 'PUT',
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(paused.status).toBe(200);
    expect(await queues.sync.isPaused()).toBe(true);
    await queues.sync.resume();
  });

  it('its pages carry the dashboard headers and no X-Powered-By', async () => {
    const server = await opsServer();
    const cookie = cookiePair(await login(server, TOKEN));
    for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
      const answer = await fetch(`${server.url}${path}`, { headers: { cookie } });
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-security-policy'), path).toContain(
        "frame-ancestors 'none'",
      );
      expect(answer.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(answer.headers.get('cache-control'), path).toBe('no-store');
      expect(answer.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(answer.headers.get('x-powered-by'), path).toBeNull();
    }
  });
});

describe('/metrics on an ops port open beyond loopback', () => {
  it('wants the admin token or the scrape token; wrong ones are throttled', async () => {
    const scrape = 'scrape-token-0b1c2d3e4f5a6b7c8d9e0f1a';
    const server = await opsServer({ metricsTokens: [TOKEN, scrape] });
    const metrics = (token?: string) =>
      fetch(`${server.url}/metrics`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    expect((await metrics()).status).toBe(401);
    expect((await metrics(scrape)).status).toBe(200);
    expect((await metrics(TOKEN)).status).toBe(200);
    // The scrape token opens nothing else.
    const api = await fetch(`${server.url}/api/v1/transfers`, {
      headers: { authorization: `Bearer ${scrape}` },
    });
    expect(api.status).toBe(401);
    for (let i = 0; i < 4; i += 1) expect((await metrics('wrong')).status).toBe(401);
    expect((await metrics('wrong')).status).toBe(429);
  });
});

describe('/metrics of work and schedule bound beyond loopback', () => {
  it('wants the admin or the scrape token too, and says so at start', async () => {
    const scrape = 'scrape-token-0b1c2d3e4f5a6b7c8d9e0f1a';
    const server = createMetricsServer({
      port: 0,
      host: '127.0.0.1',
      role: 'work',
      logger,
      readiness: async () => ({ ready: true, reasons: [] }),
      bearerTokens: [TOKEN, scrape],
    });
    await server.start();
    try {
      const metrics = (token?: string) =>
        fetch(`${server.url}/metrics`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
        });
      expect((await metrics()).status).toBe(401);
      expect((await metrics('wrong')).status).toBe(401);
      expect((await metrics(scrape)).status).toBe(200);
      expect((await metrics(TOKEN)).status).toBe(200);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(logged.join('')).toContain('/metrics wants the admin token or PAYSYNC_METRICS_TOKEN');
    } finally {
      await server.stop();
    }
  });
});
