import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { startTenantsDaemon, type RunningTenantsDaemon } from '../../src/daemon/index.ts';
import { migrateToLatest } from '../../src/db/index.ts';
import { createLogger } from '../../src/logger.ts';
import { generateWebhookSecret } from '../../src/sim/index.ts';
import { signedEvent } from '../receiver/support/receiver-fixture.ts';
import {
  slackHeaders,
  startHttpCollector,
  type HttpCollector,
} from '../alerts/support/sink-servers.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { until } from '../support/until.ts';

/**
 * Issue 25: one tenant's outage pauses that tenant only. A process serving two tenants starts
 * while one tenant's database is not migrated: the other takes its webhooks, the paused one's
 * path answers 503 with Retry-After (the service retries, nothing is lost), `/readyz` names it
 * and why; once its database is migrated it starts on the next try, with no restart.
 */
describe(`a tenant that cannot start, in a process serving two, on ${testDialect()}`, () => {
  const prefix = uniqueRedisPrefix('tenant-outage');
  const databases: TestDatabase[] = [];
  let daemon: RunningTenantsDaemon | undefined;
  const collectors: HttpCollector[] = [];

  afterEach(async () => {
    await daemon?.stop();
    for (const collector of collectors.splice(0)) await collector.close();
    for (const database of databases.splice(0)) await database.cleanup().catch(() => undefined);
    await deleteRedisPrefix(prefix);
  });

  const tenant = (name: string, database: TestDatabase, secret: string, slackUrl?: string) => ({
    name,
    config: loadConfig({
      ...(slackUrl ? { PAYSYNC_ALERT_SLACK_URL: slackUrl } : {}),
      PAYSYNC_ADMIN_TOKEN: `tok_${name}_${prefix}`,
      PAYSYNC_API_KEY: 'key_unused_by_the_receiver_0123456789',
      PAYSYNC_MERCHANT_ID: `mch_${name}`,
      PAYSYNC_DATABASE_URL: database.url,
      PAYSYNC_REDIS_URL: TEST_REDIS_URL,
      PAYSYNC_WEBHOOK_SECRET: secret,
      PAYSYNC_QUEUE_PREFIX: `${prefix}:${name}`,
      PAYSYNC_LOG_LEVEL: process.env.PAYSYNC_TEST_LOG_LEVEL ?? 'silent',
    }),
  });
  const logger = createLogger({ level: 'silent', pretty: false });
  const post = (path: string, secret: string) => {
    const event = signedEvent(secret);
    return fetch(`${daemon!.front!.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...event.headers },
      body: event.body,
    }).then(async (response) => ({ response, event }));
  };

  it('pauses that tenant alone, says which and why, alerts its own channels, and starts it once its database is migrated', async () => {
    const ready = await freshDatabase();
    const unmigrated = await freshDatabase({ migrate: false });
    databases.push(ready, unmigrated);
    const [secretA, secretB] = [generateWebhookSecret(), generateWebhookSecret()];
    const [slackA, slackB] = [await startHttpCollector(), await startHttpCollector()];
    collectors.push(slackA, slackB);
    daemon = await startTenantsDaemon({
      tenants: [
        tenant('shop-a', ready, secretA, slackA.url),
        tenant('shop-b', unmigrated, secretB, slackB.url),
      ],
      logger,
      roles: ['receiver'],
      port: 0,
      host: '127.0.0.1',
      retryMs: 300,
    });

    const paused = await post('/webhooks/shop-b', secretB);
    expect(paused.response.status).toBe(503);
    expect(paused.response.headers.get('retry-after')).toBe('1');
    expect(await paused.response.json()).toEqual({
      error: 'tenant_unavailable',
      message: expect.stringMatching(
        /^tenant shop-b is not running \(.* migration\(s\) pending .*→ run `paysync tenants migrate` first\); retry later$/,
      ),
    });
    const other = await post('/webhooks/shop-a', secretA);
    expect(other.response.status).toBeLessThan(300);

    // Its ops API, to its own token, says the same (issue 42.7); to another's, nothing.
    const opsApi = (name: string, token: string) =>
      fetch(`${daemon!.opsServer!.url}/api/v1/tenants/${name}/alerts`, {
        headers: { Authorization: `Bearer ${token}` },
      });
    const pausedApi = await opsApi('shop-b', `tok_shop-b_${prefix}`);
    expect(pausedApi.status).toBe(503);
    expect(pausedApi.headers.get('retry-after')).toBe('1');
    expect(await pausedApi.json()).toEqual({
      error: {
        code: 'tenant_unavailable',
        message: expect.stringMatching(/^tenant shop-b is not running \(.* migration\(s\) pending/),
      },
    });
    expect((await opsApi('shop-b', `tok_shop-a_${prefix}`)).status).toBe(404);
    expect((await opsApi('shop-a', `tok_shop-a_${prefix}`)).status).toBe(200);

    // The receiver's port says only that the process is not ready; the ops port says who and why.
    const anonymous = await fetch(`${daemon.front!.url}/readyz`);
    expect(anonymous.status).toBe(503);
    expect(await anonymous.json()).toEqual({ ready: false });
    const readyz = await fetch(`${daemon.opsServer!.url}/readyz`);
    expect(readyz.status).toBe(503);
    const body = (await readyz.json()) as {
      reasons: string[];
      tenants: { tenant: string; ready: boolean }[];
    };
    expect(body.tenants.map((entry) => [entry.tenant, entry.ready])).toEqual([
      ['shop-a', true],
      ['shop-b', false],
    ]);
    expect(body.reasons).toEqual([
      expect.stringMatching(/^tenant shop-b: not running: .* migration\(s\) pending/),
    ]);

    // Its own channel hears it once (not at every retry), naming the tenant and why; its
    // database cannot hold the alert, so it is sent without being recorded.
    await until(() => slackB.received.length > 0, { message: "shop-b's Slack to hear of it" });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(slackHeaders(slackB)).toEqual([
      expect.stringMatching(/^:rotating_light: Tenant shop-b is not running$/),
    ]);
    const firing = JSON.parse(slackB.received[0]!.body) as {
      blocks: { text?: { text: string } }[];
    };
    expect(firing.blocks[1]!.text!.text).toMatch(/migration\(s\) pending/);
    expect(JSON.stringify(firing)).toContain('`tenant_unavailable`');
    expect(JSON.stringify(firing)).not.toContain(secretB);

    await migrateToLatest(unmigrated.db);
    await until(async () => (await fetch(`${daemon!.front!.url}/readyz`)).status === 200, {
      message: 'shop-b to start once migrated',
      timeoutMs: 15_000,
    });
    await until(() => slackB.received.length === 2, {
      message: "shop-b's Slack to hear it started",
    });
    expect(slackHeaders(slackB)[1]).toMatch(
      /^:white_check_mark: Resolved: Tenant shop-b is not running$/,
    );
    // The other tenant's channel never hears of it.
    expect(slackA.received).toEqual([]);
    const resumed = await post('/webhooks/shop-b', secretB);
    expect(resumed.response.status).toBeLessThan(300);
    const stored = await unmigrated.db
      .selectFrom('webhook_inbox')
      .select('event_id')
      .where('event_id', '=', resumed.event.id)
      .execute();
    expect(stored).toHaveLength(1);
  });

  it('refuses to start when no tenant can, naming each', async () => {
    const first = await freshDatabase({ migrate: false });
    const second = await freshDatabase({ migrate: false });
    databases.push(first, second);
    const started = startTenantsDaemon({
      tenants: [
        tenant('shop-a', first, generateWebhookSecret()),
        tenant('shop-b', second, generateWebhookSecret()),
      ],
      logger,
      roles: ['receiver'],
      port: 0,
      host: '127.0.0.1',
    });
    await expect(started).rejects.toThrow(
      /^tenant shop-a: .* migration\(s\) pending .*; tenant shop-b: .* migration\(s\) pending/,
    );
  });
});
