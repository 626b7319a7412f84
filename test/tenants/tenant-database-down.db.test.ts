import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { startTenantsDaemon, type RunningTenantsDaemon } from '../../src/daemon/index.ts';
import { createLogger } from '../../src/logger.ts';
import { generateWebhookSecret } from '../../src/sim/index.ts';
import { canMountSmallDisk, sqliteOnSmallDisk } from '../support/small-disk.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import {
  freshDatabase,
  testDialect,
  testPostgresUrl,
  type TestDatabase,
} from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { until } from '../support/until.ts';
import { cleanupsAfterEach } from '../support/cleanups.ts';

const cleanups = cleanupsAfterEach();

/** A tenant's database the test makes fail under the running process, then brings back. */
interface FailingDatabase {
  readonly url: string;
  fail(): Promise<void>;
  recover(): Promise<void>;
  /** Whether reads fail too (a server gone), or only writes (a full disk). */
  readonly readsFail: boolean;
}

/**
 * PostgreSQL: the tenant reaches the shared server through a TCP proxy of the test's own, which
 * is stopped (every connection cut, new ones refused: ECONNREFUSED, "Connection terminated") and
 * started again on the same port. SQLite: the file lives on a tmpfs of its own, which is filled
 * (SQLITE_FULL on every commit; reads go on) and freed.
 */
async function failingDatabase(database: TestDatabase): Promise<FailingDatabase> {
  if (testDialect() === 'sqlite') {
    const { url, disk } = await sqliteOnSmallDisk(database, cleanups);
    return {
      url,
      fail: async () => disk.fill(),
      recover: async () => disk.free(),
      readsFail: false,
    };
  }
  const server = new URL(testPostgresUrl());
  const proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
  cleanups.push(() => proxy.stop());
  const url = new URL(testPostgresUrl());
  url.port = String(proxy.port);
  url.searchParams.set('options', `-c search_path=${database.schema!}`);
  return {
    url: url.toString(),
    fail: () => proxy.stop(),
    recover: () => proxy.start(),
    readsFail: true,
  };
}

const sqliteWithoutMount = testDialect() === 'sqlite' && !canMountSmallDisk();

describe(`issue 42.7: a tenant whose database fails while running (${testDialect()})`, () => {
  it.skipIf(sqliteWithoutMount)(
    'its ops API and dashboard answer 503 with Retry-After while the other tenant answers 200, and it answers again once its database does',
    async () => {
      const healthy = await freshDatabase();
      const broken = await freshDatabase();
      cleanups.push(
        () => healthy.cleanup(),
        () => broken.cleanup(),
      );
      const failing = await failingDatabase(broken);
      const prefix = uniqueRedisPrefix('tenant-db-down');
      cleanups.push(() => deleteRedisPrefix(prefix).then(() => undefined));
      const tokens = {
        'shop-a': `tok_a_${randomBytes(16).toString('hex')}`,
        'shop-b': `tok_b_${randomBytes(16).toString('hex')}`,
      };
      const tenant = (name: 'shop-a' | 'shop-b', url: string) => ({
        name,
        config: loadConfig({
          PAYSYNC_API_KEY: 'key_unused_by_the_receiver_0123456789',
          PAYSYNC_MERCHANT_ID: `mch_${name}`,
          PAYSYNC_DATABASE_URL: url,
          PAYSYNC_REDIS_URL: TEST_REDIS_URL,
          PAYSYNC_WEBHOOK_SECRET: generateWebhookSecret(),
          PAYSYNC_ADMIN_TOKEN: tokens[name],
          PAYSYNC_QUEUE_PREFIX: `${prefix}:${name}`,
          PAYSYNC_LOG_LEVEL: process.env.PAYSYNC_TEST_LOG_LEVEL ?? 'silent',
        }),
      });
      const daemon: RunningTenantsDaemon = await startTenantsDaemon({
        tenants: [tenant('shop-a', healthy.url), tenant('shop-b', failing.url)],
        logger: createLogger({
          level: process.env.PAYSYNC_TEST_LOG_LEVEL ?? 'silent',
          pretty: false,
        }),
        roles: ['receiver'],
        port: 0,
        host: '127.0.0.1',
      });
      cleanups.push(() => daemon.stop().then(() => undefined));
      const ops = daemon.opsServer!.url;
      const api = (name: 'shop-a' | 'shop-b', method: string, path: string, body?: unknown) =>
        fetch(`${ops}/api/v1/tenants/${name}${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${tokens[name]}`,
            ...(body ? { 'Content-Type': 'application/json' } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      const dashboard = (name: 'shop-a' | 'shop-b', path: string, form?: URLSearchParams) =>
        fetch(`${ops}/tenants/${name}${path}`, {
          method: form ? 'POST' : 'GET',
          redirect: 'manual',
          headers: {
            Authorization: `Bearer ${tokens[name]}`,
            ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
          },
          ...(form ? { body: form.toString() } : {}),
        });
      const addEndpoint = async (name: 'shop-a' | 'shop-b') => {
        const added = await api(name, 'POST', '/endpoints', {
          url: 'https://203.0.113.10/paysync',
          events: ['transfer.*'],
        });
        expect(added.status).toBe(201);
        return ((await added.json()) as { data: { endpoint: { id: string } } }).data.endpoint.id;
      };
      const disableForm = async (name: 'shop-a' | 'shop-b') => {
        const page = await (await dashboard(name, '/endpoints')).text();
        const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
        expect(csrf).toBeDefined();
        return new URLSearchParams({ csrf: csrf! });
      };

      // Before: both tenants answer, and each has an endpoint the test can disable.
      const endpointA = await addEndpoint('shop-a');
      const endpointB = await addEndpoint('shop-b');
      const formA = await disableForm('shop-a');
      const formB = await disableForm('shop-b');

      await failing.fail();

      const expectUnavailable = async (answer: Response) => {
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('5');
      };
      // The API: a write always, a read when the server is gone.
      const write = await api('shop-b', 'POST', `/endpoints/${endpointB}/disable`);
      await expectUnavailable(write);
      expect(await write.json()).toEqual({
        error: {
          code: 'tenant_unavailable',
          message: expect.stringMatching(
            /^tenant shop-b cannot use its database \(.+\); retry later$/,
          ),
        },
      });
      // A write in a transaction too (an endpoint and its deliveries go together).
      await expectUnavailable(await api('shop-b', 'DELETE', `/endpoints/${endpointB}`));
      const read = await api('shop-b', 'GET', '/alerts');
      if (failing.readsFail) {
        await expectUnavailable(read);
        expect(((await read.json()) as { error: { code: string } }).error.code).toBe(
          'tenant_unavailable',
        );
      } else {
        expect(read.status).toBe(200);
      }
      // The dashboard: its form, and its pages when the server is gone.
      const form = await dashboard('shop-b', `/actions/endpoints/${endpointB}/disable`, formB);
      await expectUnavailable(form);
      expect(await form.text()).toContain('Tenant shop-b cannot use its database right now');
      const page = await dashboard('shop-b', '/');
      if (failing.readsFail) {
        await expectUnavailable(page);
        expect(await page.text()).toContain('Tenant shop-b cannot use its database right now');
      } else {
        expect(page.status).toBe(200);
      }

      // The other tenant answers as before, reads and writes.
      expect((await api('shop-a', 'GET', '/alerts')).status).toBe(200);
      expect((await api('shop-a', 'POST', `/endpoints/${endpointA}/disable`)).status).toBe(200);
      expect((await dashboard('shop-a', '/')).status).toBe(200);
      const otherForm = await dashboard('shop-a', `/actions/endpoints/${endpointA}/enable`, formA);
      expect(otherForm.status).toBe(303);

      // Back: the tenant answers again, with no restart.
      await failing.recover();
      await until(
        async () => (await api('shop-b', 'POST', `/endpoints/${endpointB}/disable`)).status === 200,
        { message: "shop-b's ops API to answer again" },
      );
      expect((await api('shop-b', 'GET', '/alerts')).status).toBe(200);
      // The refused delete changed nothing.
      expect((await api('shop-b', 'GET', `/endpoints/${endpointB}`)).status).toBe(200);
      expect((await dashboard('shop-b', '/')).status).toBe(200);
      const again = await dashboard('shop-b', `/actions/endpoints/${endpointB}/enable`, formB);
      expect(again.status).toBe(303);
    },
  );
});
