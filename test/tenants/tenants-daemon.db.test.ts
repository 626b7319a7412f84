import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPS_API_BASE, OPS_ROUTES } from '../../src/ops/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { startTenantsDaemon, type RunningTenantsDaemon } from '../../src/daemon/index.ts';
import { createLogger } from '../../src/logger.ts';
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
} from '../../src/sim/index.ts';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/index.ts';
import { queueBacklog } from '../processing/support/daemon-fixture.ts';
import { waitForCatchUp, type EndState } from '../processing/support/end-state.ts';
import { signedEvent } from '../receiver/support/receiver-fixture.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';

/**
 * Issue 25, one set of processes: one in-process daemon serves two tenants, two merchants of
 * one platform whose services hand out the same item ids. Each service
 * sends its webhooks to `/webhooks/<tenant>` of the one port; each tenant's books must end
 * equal to its own service's truth, and a webhook sent to the other tenant's path is refused
 * (its signature is checked with that tenant's secret) and stored nowhere.
 */
interface Side {
  readonly name: string;
  readonly merchantId: string;
  readonly sim: RunningSimulator;
  readonly client: UpstreamClient;
  readonly database: TestDatabase;
  readonly secret: string;
  /** The tenant's own admin token (PAYSYNC_ADMIN_TOKEN of its settings). */
  readonly token: string;
}

describe(`one process serving two tenants on ${testDialect()}`, () => {
  const prefix = uniqueRedisPrefix('tenants-daemon');
  const sides: Side[] = [];
  let daemon: RunningTenantsDaemon;
  let states: EndState[];
  let twinId: string;

  beforeAll(async () => {
    const startAt = new Date(Date.now() - 3_600_000);
    for (const [name, merchantId] of [
      ['shop-sn', 'mch_shop_sn'],
      ['shop-ci', 'mch_shop_ci'],
    ] as const) {
      const secret = generateWebhookSecret();
      // One seed: both services mint the same ids, in the same order.
      const sim = await startSimulator({
        seed: 25,
        merchantId,
        freezeClock: true,
        startAt,
        webhookSecret: secret,
        webhookRetryDelaysMs: [200, 500, 1000, 2000, 4000, 8000],
        webhookTimeoutMs: 20_000,
      });
      const client = createUpstreamClient({
        now: () => new Date(),
        baseUrl: sim.url,
        apiKey: sim.credentials.apiKey,
        merchantId,
        rps: 5000,
        concurrency: 16,
        timeoutMs: 60_000,
      });
      sides.push({
        name,
        merchantId,
        sim,
        client,
        database: await freshDatabase(),
        secret,
        token: `tok_${name}_${randomBytes(16).toString('hex')}`,
      });
    }
    const tenants = sides.map((side) => ({
      name: side.name,
      config: loadConfig({
        PAYSYNC_UPSTREAM_URL: side.sim.url,
        PAYSYNC_API_KEY: side.sim.credentials.apiKey,
        PAYSYNC_MERCHANT_ID: side.merchantId,
        PAYSYNC_DATABASE_URL: side.database.url,
        PAYSYNC_REDIS_URL: TEST_REDIS_URL,
        PAYSYNC_WEBHOOK_SECRET: side.secret,
        PAYSYNC_ADMIN_TOKEN: side.token,
        PAYSYNC_QUEUE_PREFIX: `${prefix}:${side.name}`,
        PAYSYNC_UPSTREAM_RPS: '5000',
        PAYSYNC_UPSTREAM_CONCURRENCY: '32',
        PAYSYNC_UPSTREAM_TIMEOUT_MS: '30000',
        PAYSYNC_WORKER_CONCURRENCY: '8',
        PAYSYNC_LOG_LEVEL: process.env.PAYSYNC_TEST_LOG_LEVEL ?? 'silent',
        // The isolation test tries wrong tokens on every route from one address.
        PAYSYNC_AUTH_FAILURES_PER_MINUTE: '10000',
      }),
    }));
    daemon = await startTenantsDaemon({
      tenants,
      logger: createLogger({ level: tenants[0]!.config.logLevel, pretty: false }),
      roles: ['receiver', 'workers', 'scheduler'],
      port: 0,
      host: '127.0.0.1',
    });
    for (const side of sides) {
      await side.client.createWebhook({ url: `${daemon.front!.url}/webhooks/${side.name}` });
    }
    // The same id on both services, with different amounts.
    const destination = { number: '+221771234500811' };
    twinId = sides[0]!.sim.control.createTransfer({
      amount: 1000,
      reference: 'twin',
      destination,
    }).id;
    const twin = sides[1]!.sim.control.createTransfer({
      amount: 2500,
      reference: 'twin',
      destination,
    });
    expect(twin.id).toBe(twinId);
    await Promise.all(
      sides.map((side) =>
        generateMixedTraffic(side.sim, side.client, {
          transfers: 16,
          paymentIntents: 14,
          refunds: 7,
          paymentRefunds: 3,
          backlog: () => queueBacklog(daemon.tenants.get(side.name)!),
        }),
      ),
    );
    states = await Promise.all(
      sides.map((side) => waitForCatchUp(side.database.db, side.sim, 120_000)),
    );
  }, 240_000);

  afterAll(async () => {
    await daemon?.stop().catch(() => undefined);
    for (const side of sides) {
      await side.sim.stop().catch(() => undefined);
      await side.database.cleanup().catch(() => undefined);
    }
    await deleteRedisPrefix(prefix);
  });

  it("each tenant's books end equal to its own service's truth", () => {
    for (const state of states) {
      expect(state.items).toBe(41);
      expect(state.statusMismatches).toEqual([]);
      expect(state.unbalancedJournals).toEqual([]);
      expect(state.settlementProblems).toEqual([]);
      expect(state.openInbox).toEqual({});
    }
  });

  it('the same transfer id is booked in each tenant’s own books, with its own amount', async () => {
    const amounts = await Promise.all(
      sides.map(async (side) => {
        const row = await side.database.db
          .selectFrom('transfers')
          .select('amount')
          .where('id', '=', twinId)
          .executeTakeFirstOrThrow();
        return Number(row.amount);
      }),
    );
    expect(amounts).toEqual([1000, 2500]);
  });

  it("a webhook signed with one tenant's secret is refused on the other's path and stored nowhere", async () => {
    const [sn, ci] = sides as [Side, Side];
    const event = signedEvent(sn.secret);
    const post = (path: string) =>
      fetch(`${daemon.front!.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...event.headers },
        body: event.body,
      });
    const forged = await post('/webhooks/shop-ci');
    expect(forged.status).toBe(401);
    // An anonymous caller learns no tenant's name: a plain 404, as for any path.
    const plain = { error: 'not_found', message: 'no such route' };
    const unknown = await post('/webhooks/acme-ml');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual(plain);
    const bare = await post('/webhooks');
    expect(bare.status).toBe(404);
    expect(await bare.json()).toEqual(plain);
    for (const side of [sn, ci]) {
      const stored = await side.database.db
        .selectFrom('webhook_inbox')
        .select('id')
        .where('event_id', '=', event.id)
        .execute();
      expect(stored).toEqual([]);
    }
    // The same event on its own tenant's path is taken, into that tenant's inbox only.
    expect((await post('/webhooks/shop-sn')).status).toBeLessThan(300);
    const inSn = await sn.database.db
      .selectFrom('webhook_inbox')
      .select('id')
      .where('event_id', '=', event.id)
      .execute();
    expect(inSn).toHaveLength(1);
  });

  it('/readyz answers for each tenant, and /metrics labels each tenant’s gauges, on the ops port; the receiver port names no tenant', async () => {
    const anonymous = await fetch(`${daemon.front!.url}/readyz`);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ ready: true });
    expect((await fetch(`${daemon.front!.url}/metrics`)).status).toBe(404);
    const ready = await fetch(`${daemon.opsServer!.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      ready: true,
      reasons: [],
      tenants: [
        { tenant: 'shop-sn', ready: true, reasons: [] },
        { tenant: 'shop-ci', ready: true, reasons: [] },
      ],
    });
    const metrics = await (await fetch(`${daemon.opsServer!.url}/metrics`)).text();
    for (const name of ['shop-sn', 'shop-ci']) {
      expect(metrics).toMatch(
        new RegExp(`paysync_queue_jobs\\{queue="sync",state="waiting",tenant="${name}"\\} 0`),
      );
    }
  });

  it("a tenant's admin token reaches none of the other tenant's ops routes (every route of the table)", async () => {
    const [sn, ci] = sides as [Side, Side];
    const hidden = { error: { code: 'not_found', message: 'no such route' } };
    const call = (tenant: string, method: string, tail: string, token?: string) =>
      fetch(`${daemon.opsServer!.url}${OPS_API_BASE}/tenants/${tenant}${tail}`, {
        method: method.toUpperCase(),
        headers: {
          'Content-Type': 'application/json',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        ...(method === 'get' ? {} : { body: '{}' }),
      });
    expect(OPS_ROUTES.length).toBeGreaterThan(20);
    for (const route of OPS_ROUTES) {
      const tail = route.path.slice(OPS_API_BASE.length).replace(/\{\w+\}/g, twinId);
      const what = `${route.method.toUpperCase()} ${route.path}`;
      for (const [tenant, token] of [
        [ci.name, sn.token],
        [sn.name, ci.token],
        ['acme-ml', sn.token],
      ] as const) {
        const crossed = await call(tenant, route.method, tail, token);
        expect(crossed.status, `${what} on ${tenant}`).toBe(404);
        expect(await crossed.json(), `${what} on ${tenant}`).toEqual(hidden);
      }
      // Without a valid token: 401, whether the tenant exists or not.
      for (const tenant of [ci.name, 'acme-ml']) {
        expect((await call(tenant, route.method, tail)).status, what).toBe(401);
        expect((await call(tenant, route.method, tail, 'tok_wrong')).status, what).toBe(401);
      }
    }
    // Each tenant's own token reads its own books: the same id, each tenant's amount.
    for (const [side, amount] of [
      [sn, 1000],
      [ci, 2500],
    ] as const) {
      const own = await call(side.name, 'get', `/items/${twinId}`, side.token);
      expect(own.status).toBe(200);
      expect(((await own.json()) as { record: { amount: number } }).record.amount).toBe(amount);
    }
    // The API without a tenant names where each tenant's is.
    const bare = await fetch(`${daemon.opsServer!.url}${OPS_API_BASE}/runs`, {
      headers: { Authorization: `Bearer ${sn.token}` },
    });
    expect(bare.status).toBe(404);
    expect(((await bare.json()) as { error: { code: string } }).error.code).toBe('tenant_required');
    // The receiver's port has no ops API at all, whatever the token.
    const receiverPort = await fetch(
      `${daemon.front!.url}${OPS_API_BASE}/tenants/${sn.name}/runs`,
      {
        headers: { Authorization: `Bearer ${sn.token}` },
      },
    );
    expect(receiverPort.status).toBe(404);
  });
});
