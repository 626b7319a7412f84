import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTenantsDaemon, type RunningTenantsDaemon } from '../../src/daemon/index.ts';
import { createLogger } from '../../src/logger.ts';
import { OPS_API_BASE, OPS_ROUTES } from '../../src/ops/index.ts';
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
} from '../../src/sim/index.ts';
import { loadTenants } from '../../src/tenants/index.ts';
import { addFailedTransfer, DAY_SIM_OPTIONS } from '../ops/support/ops-day.ts';
import {
  freshDatabase,
  testDialect,
  testPostgresUrl,
  type TestDatabase,
} from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';

/**
 * Issue 25, ops surfaces of a process serving several tenants: three tenants from a tenants
 * file, each with its own service and books. `shop-sn` has a token of its own, `acme` another,
 * and the file's `admin_tokens` gives a finance token to `shop-sn` and `shop-ci`. Each token
 * must see exactly its tenants, on the API and in the dashboard (driven in Chromium): the
 * switcher lists them, switching shows the other tenant's books, and any other tenant's page is
 * the 404 of a page that does not exist.
 */
interface Side {
  readonly name: string;
  readonly sim: RunningSimulator;
  readonly database: TestDatabase;
  /** A failed transfer booked in this tenant's books only (the Today page lists it). */
  itemId: string;
}

const NAMES = ['shop-sn', 'shop-ci', 'acme'] as const;
const SN_TOKEN = `tok_sn_${randomBytes(12).toString('hex')}`;
const ACME_TOKEN = `tok_acme_${randomBytes(12).toString('hex')}`;
const FINANCE_TOKEN = `tok_finance_${randomBytes(12).toString('hex')}`;
const HIDDEN = { error: { code: 'not_found', message: 'no such route' } };

describe(`the ops surfaces of a process serving several tenants on ${testDialect()}`, () => {
  const prefix = uniqueRedisPrefix('tenants-dashboard');
  const dir = mkdtempSync(join(tmpdir(), 'paysync-tenants-dashboard-'));
  const sides: Side[] = [];
  let daemon: RunningTenantsDaemon;
  let url: string;
  let browser: Browser;
  let page: Page;
  const side = (name: string) => sides.find((s) => s.name === name)!;

  beforeAll(async () => {
    const env: Record<string, string> = {
      PAYSYNC_REDIS_URL: TEST_REDIS_URL,
      PAYSYNC_QUEUE_PREFIX: prefix,
      PAYSYNC_LOG_LEVEL: process.env.PAYSYNC_TEST_LOG_LEVEL ?? 'silent',
      PAYSYNC_EXPORT_DIR: join(dir, 'exports'),
      PAYSYNC_RECEIPTS_DIR: join(dir, 'receipts'),
      BOOKS_SERVER: testPostgresUrl(),
      SN_ADMIN: SN_TOKEN,
      ACME_ADMIN: ACME_TOKEN,
      OPS_FINANCE_TOKEN: FINANCE_TOKEN,
      // These tests try wrong tokens and sessions on every route from one address.
      PAYSYNC_AUTH_FAILURES_PER_MINUTE: '10000',
    };
    const entries: string[] = [];
    for (const [index, name] of NAMES.entries()) {
      const merchantId = `mch_${name.replace('-', '_')}`;
      const sim = await startSimulator({ ...DAY_SIM_OPTIONS, seed: 250 + index, merchantId });
      const database = await freshDatabase();
      sides.push({ name, sim, database, itemId: '' });
      const key = name.toUpperCase().replace('-', '_');
      env[`${key}_KEY`] = sim.credentials.apiKey;
      env[`${key}_WHSEC`] = generateWebhookSecret();
      const books =
        database.schema === undefined
          ? `{ sqlite: ${database.url.slice('sqlite:'.length)} }`
          : `{ postgres_schema: ${database.schema}, url: { env: BOOKS_SERVER } }`;
      const own = { 'shop-sn': 'SN_ADMIN', acme: 'ACME_ADMIN' }[name as string];
      entries.push(`  - name: ${name}
    merchant_id: ${merchantId}
    environment: sandbox
    service_url: ${sim.url}
    api_key: { env: ${key}_KEY }
    webhook_secret: { env: ${key}_WHSEC }
    database: ${books}
${own ? `    settings:\n      PAYSYNC_ADMIN_TOKEN: { env: ${own} }\n` : ''}`);
    }
    writeFileSync(
      join(dir, 'tenants.yaml'),
      `tenants:
${entries.join('')}admin_tokens:
  - token: { env: OPS_FINANCE_TOKEN }
    tenants: [shop-sn, shop-ci]
`,
    );
    const loaded = loadTenants({ ...env, PAYSYNC_TENANTS_FILE: 'tenants.yaml' }, dir);
    daemon = await startTenantsDaemon({
      tenants: loaded.tenants.map(({ name, config }) => ({ name, config })),
      logger: createLogger({ level: loaded.tenants[0]!.config.logLevel, pretty: false }),
      roles: ['receiver'],
      port: 0,
      host: '127.0.0.1',
    });
    // The dashboards and the ops API are on the ops port, not the receiver's.
    url = daemon.opsServer!.url;
    for (const s of sides) {
      const queues = daemon.tenants.get(s.name)!.queues;
      s.itemId = await addFailedTransfer(
        { db: s.database.db, sim: s.sim, queues },
        `payout of ${s.name}`,
      );
    }
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
    });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await daemon?.stop().catch(() => undefined);
    for (const s of sides) {
      await s.sim.stop().catch(() => undefined);
      await s.database.cleanup().catch(() => undefined);
    }
    await deleteRedisPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('each tenant has an item of its own: the ids differ, so a page shows whose books it reads', () => {
    expect(new Set(sides.map((s) => s.itemId)).size).toBe(3);
  });

  it("a token of several tenants reaches each of their API routes, and no other tenant's (every route of the table)", async () => {
    const call = (tenant: string, method: string, tail: string, token: string) =>
      fetch(`${url}${OPS_API_BASE}/tenants/${tenant}${tail}`, {
        method: method.toUpperCase(),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        ...(method === 'get' ? {} : { body: '{}' }),
      });
    expect(OPS_ROUTES.length).toBeGreaterThan(20);
    for (const route of OPS_ROUTES) {
      const tail = route.path.slice(OPS_API_BASE.length).replace(/\{\w+\}/g, 'tr_none');
      const what = `${route.method.toUpperCase()} ${route.path}`;
      const allowed: [string, string][] = [
        ['shop-sn', FINANCE_TOKEN],
        ['shop-ci', FINANCE_TOKEN],
        ['shop-sn', SN_TOKEN],
        ['acme', ACME_TOKEN],
      ];
      for (const [tenant, token] of allowed) {
        const answer = await call(tenant, route.method, tail, token);
        expect(answer.status, `${what} on ${tenant}`).not.toBe(401);
        const body: unknown = await answer.json().catch(() => undefined);
        expect(body, `${what} on ${tenant}`).not.toEqual(HIDDEN);
      }
      const hidden: [string, string][] = [
        ['acme', FINANCE_TOKEN],
        ['shop-ci', SN_TOKEN],
        ['acme', SN_TOKEN],
        ['shop-sn', ACME_TOKEN],
        ['nowhere', FINANCE_TOKEN],
      ];
      for (const [tenant, token] of hidden) {
        const answer = await call(tenant, route.method, tail, token);
        expect(answer.status, `${what} on ${tenant}`).toBe(404);
        expect(await answer.json(), `${what} on ${tenant}`).toEqual(HIDDEN);
      }
    }
    // The finance token reads each of its tenants' own books.
    for (const name of ['shop-sn', 'shop-ci']) {
      const own = await call(name, 'get', `/items/${side(name).itemId}`, FINANCE_TOKEN);
      expect(own.status).toBe(200);
      expect(((await own.json()) as { record: { id: string } }).record.id).toBe(side(name).itemId);
      const other = side(name === 'shop-sn' ? 'shop-ci' : 'shop-sn').itemId;
      expect((await call(name, 'get', `/items/${other}`, FINANCE_TOKEN)).status).toBe(404);
    }
  });

  /** The tenants the switcher of the page shown lists, and the one marked current. */
  const switcher = async () => ({
    tenants: await page.locator('nav.tenants a').allTextContents(),
    current: await page.locator('nav.tenants a[aria-current=page]').allTextContents(),
  });
  const logIn = async (token: string) => {
    const login = await page.goto(`${url}/login`);
    expect(login?.status()).toBe(200);
    await page.fill('input[name=token]', token);
    await page.click('button[type=submit]');
    await page.waitForSelector('#failed-transfers');
  };
  const logOut = async () => {
    await page.click('header form button');
    await page.waitForSelector('input[name=token]');
    expect(await page.context().cookies()).toEqual([]);
  };

  it('without a session every dashboard path is the login form (401), whether the tenant exists or not', async () => {
    for (const path of [
      '/',
      '/tenants/shop-sn/',
      '/tenants/nowhere/items/x',
      '/tenants/acme/admin/queues',
    ]) {
      const answer = await page.goto(`${url}${path}`);
      expect(answer?.status(), path).toBe(401);
      expect(await page.locator('input[name=token]').count(), path).toBe(1);
    }
    await page.fill('input[name=token]', 'tok_of_nobody');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('main')).toContain('Not accepted.');
    expect(await page.context().cookies()).toEqual([]);
  }, 30_000);

  it("a session of one tenant's token: the switcher shows only it; another tenant's pages are the 404 of a page that does not exist", async () => {
    await logIn(SN_TOKEN);
    expect(new URL(page.url()).pathname).toBe('/tenants/shop-sn/');
    expect(await switcher()).toEqual({ tenants: ['shop-sn'], current: ['shop-sn'] });
    const main = await page.textContent('#failed-transfers');
    expect(main).toContain(side('shop-sn').itemId);
    expect(main).not.toContain(side('shop-ci').itemId);
    // The panels' links stay under the tenant's path.
    await page.click(`a[href="/tenants/shop-sn/items/${side('shop-sn').itemId}"]`);
    await page.waitForURL(`**/tenants/shop-sn/items/${side('shop-sn').itemId}`);
    expect(await page.textContent('h1')).toContain(side('shop-sn').itemId);
    await page.click('header nav:not(.tenants) a:has-text("Balances")');
    await page.waitForURL('**/tenants/shop-sn/balances');

    const missing = await page.goto(`${url}/tenants/shop-sn/no-such-page`);
    expect(missing?.status()).toBe(404);
    const notFound = await page.content();
    expect(notFound).toContain('No such page.');
    for (const path of [
      '/tenants/shop-ci/',
      `/tenants/shop-ci/items/${side('shop-ci').itemId}`,
      '/tenants/shop-ci/admin/queues',
      '/tenants/acme/balances',
      '/tenants/nowhere/',
    ]) {
      const answer = await page.goto(`${url}${path}`);
      expect(answer?.status(), path).toBe(404);
      expect(await page.content(), path).toBe(notFound);
    }
    // A POST to another tenant's action is refused the same way, and changes nothing.
    const forged = await page.request.post(`${url}/tenants/shop-ci/actions/replay`, {
      form: { csrf: 'x', inboxId: '1' },
    });
    expect(forged.status()).toBe(404);
    await page.goto(`${url}/tenants/shop-sn/`);
    await logOut();
  }, 60_000);

  it('a session of a token of two tenants: the switcher lists exactly those two, and switching shows the other’s books', async () => {
    await logIn(FINANCE_TOKEN);
    expect(new URL(page.url()).pathname).toBe('/tenants/shop-sn/');
    expect(await switcher()).toEqual({ tenants: ['shop-sn', 'shop-ci'], current: ['shop-sn'] });
    await page.click('nav.tenants a:has-text("shop-ci")');
    await page.waitForURL('**/tenants/shop-ci/');
    await page.waitForSelector('#failed-transfers');
    expect(await switcher()).toEqual({ tenants: ['shop-sn', 'shop-ci'], current: ['shop-ci'] });
    const main = await page.textContent('#failed-transfers');
    expect(main).toContain(side('shop-ci').itemId);
    expect(main).not.toContain(side('shop-sn').itemId);
    // Each tenant's item page reads its own books; the other tenant's id is not there.
    const own = await page.goto(`${url}/tenants/shop-ci/items/${side('shop-ci').itemId}`);
    expect(own?.status()).toBe(200);
    expect(await page.textContent('h1')).toContain(side('shop-ci').itemId);
    const across = await page.goto(`${url}/tenants/shop-ci/items/${side('shop-sn').itemId}`);
    expect(across?.status()).toBe(404);
    // A form carries its own tenant's CSRF token: another tenant of the session refuses it.
    await page.goto(`${url}/tenants/shop-sn/`);
    const snCsrf = await page.locator('header form input[name=csrf]').inputValue();
    const crossed = await page.request.post(`${url}/tenants/shop-ci/logout`, {
      form: { csrf: snCsrf },
      maxRedirects: 0,
    });
    expect(crossed.status()).toBe(403);
    expect(await page.context().cookies()).toHaveLength(1);
    // The third tenant stays hidden.
    const acme = await page.goto(`${url}/tenants/acme/`);
    expect(acme?.status()).toBe(404);
    expect(await page.content()).not.toContain('acme');
  }, 60_000);

  it("each tenant's bull-board shows that tenant's queues only", async () => {
    const marker = `marker-${randomBytes(4).toString('hex')}`;
    await daemon.tenants
      .get('shop-ci')!
      .queues.scheduled.add(marker as never, {} as never, { delay: 3_600_000 });
    const delayed = async (tenant: string) => {
      const answer = await page.request.get(
        `${url}/tenants/${tenant}/admin/queues/api/queues?activeQueue=${daemon.tenants.get(tenant)!.queues.scheduled.name}&status=delayed&page=1&jobsPerPage=50`,
      );
      expect(answer.status()).toBe(200);
      const body = (await answer.json()) as {
        queues: { name: string; jobs: { name: string }[] }[];
      };
      return body.queues.flatMap((queue) => queue.jobs.map((job) => job.name));
    };
    expect(await delayed('shop-ci')).toContain(marker);
    expect(await delayed('shop-sn')).not.toContain(marker);
    // The board's own page, under the tenant's path, loads its assets and API from there.
    const board = await page.goto(`${url}/tenants/shop-ci/admin/queues`);
    expect(board?.status()).toBe(200);
    await expect.poll(() => page.textContent('body'), { timeout: 15_000 }).toContain('shop-ci');
    await expect
      .poll(() => page.textContent('body'), { timeout: 15_000 })
      .toContain(daemon.tenants.get('shop-ci')!.queues.scheduled.name);
    const acme = await page.request.get(`${url}/tenants/acme/admin/queues/api/queues`);
    expect(acme.status()).toBe(404);
    await page.goto(`${url}/tenants/shop-sn/`);
    await logOut();
  }, 60_000);

  it("a script's bearer token opens the pages of its tenants only, like a session", async () => {
    const get = (path: string, token?: string) =>
      fetch(`${url}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    expect((await get('/tenants/shop-ci/pipeline', FINANCE_TOKEN)).status).toBe(200);
    expect((await get('/tenants/acme/pipeline', ACME_TOKEN)).status).toBe(200);
    expect((await get('/tenants/acme/pipeline', FINANCE_TOKEN)).status).toBe(404);
    expect((await get('/tenants/acme/pipeline', 'tok_of_nobody')).status).toBe(401);
    expect((await get('/tenants/acme/pipeline')).status).toBe(401);
    const home = await fetch(`${url}/`, {
      headers: { Authorization: `Bearer ${ACME_TOKEN}` },
      redirect: 'manual',
    });
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toBe('/tenants/acme/');
  });

  it("a tenant's pipeline page counts its own refused webhooks, not another tenant's", async () => {
    const refusedOn = async (tenant: string, token: string) => {
      const page = await fetch(`${url}/tenants/${tenant}/pipeline`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const text = await page.text();
      return Number(
        /Refused <span[^>]*>[^<]*<\/span><\/th>\s*<td class="num">(\d+)</.exec(text)?.[1],
      );
    };
    const before = await refusedOn('shop-ci', FINANCE_TOKEN);
    // Three webhooks with no valid signature on acme's path: refused, counted for acme.
    for (let index = 0; index < 3; index += 1) {
      const refused = await fetch(`${daemon.front!.url}/webhooks/acme`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'webhook-signature': 'v1,forged' },
        body: '{}',
      });
      expect(refused.status).toBe(401);
    }
    expect(await refusedOn('acme', ACME_TOKEN)).toBeGreaterThanOrEqual(3);
    expect(await refusedOn('shop-ci', FINANCE_TOKEN)).toBe(before);
  });
});
