import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/index.ts';
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
} from '../../src/sim/index.ts';
import { spawnServe } from '../receiver/support/serve-child.ts';
import { runCli } from '../support/run-cli.ts';
import { testDialect, testPostgresUrl } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';

/**
 * Issue 25: two tenants of one tenants file, a live-like and a sandbox account of one merchant,
 * whose service hands out the same item ids (the service's ids are only unique per merchant and
 * environment). Every command works on the tenant `--tenant` names, and each tenant's items are
 * booked in its own database only.
 */
describe(`tenants from PAYSYNC_TENANTS_FILE on ${testDialect()}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paysync-tenants-'));
  const prefix = uniqueRedisPrefix('tenants-cli');
  const suffix = randomBytes(4).toString('hex');
  const schemas = [`t_live_${suffix}`, `t_sandbox_${suffix}`];
  const postgres = testDialect() === 'postgres';
  let live: RunningSimulator;
  let sandbox: RunningSimulator;
  let env: Record<string, string>;
  let transferId: string;

  const databaseOf = (index: number) =>
    postgres
      ? `{ postgres_schema: ${schemas[index]}, url: { env: BOOKS_SERVER } }`
      : `{ sqlite: ./books-${index}.db }`;
  const urlOf = (index: number) =>
    postgres
      ? `${testPostgresUrl()}?options=${encodeURIComponent(`-c search_path=${schemas[index]}`)}`
      : `sqlite:${join(dir, `books-${index}.db`)}`;
  const run = (args: string[]) => runCli(args, { env, cwd: dir, timeoutMs: 60_000 });

  beforeAll(async () => {
    const startAt = new Date(Date.now() - 3_600_000);
    // One seed: both services mint the same ids, in the same order.
    live = await startSimulator({ seed: 25, merchantId: 'mch_same', freezeClock: true, startAt });
    sandbox = await startSimulator({
      seed: 25,
      merchantId: 'mch_same',
      freezeClock: true,
      startAt,
    });
    const destination = { number: '+221771234500811' };
    transferId = live.control.createTransfer({
      amount: 1000,
      reference: 'pay-1',
      destination,
      mode: 'live',
    }).id;
    const twin = sandbox.control.createTransfer({ amount: 2500, reference: 'pay-1', destination });
    expect(twin.id).toBe(transferId);
    writeFileSync(join(dir, 'sandbox.key'), `${sandbox.credentials.apiKey}\n`);
    writeFileSync(join(dir, 'sandbox.whsec'), `${generateWebhookSecret()}\n`);
    writeFileSync(
      join(dir, 'tenants.yaml'),
      `tenants:
  - name: shop-live
    merchant_id: mch_same
    environment: live
    service_url: ${live.url}
    api_key: { env: SHOP_LIVE_API_KEY }
    webhook_secret: { env: SHOP_LIVE_WEBHOOK_SECRET }
    database: ${databaseOf(0)}
    settings:
      PAYSYNC_BOOKS_TIMEZONE: Europe/Paris
  - name: shop-sandbox
    merchant_id: mch_same
    environment: sandbox
    service_url: ${sandbox.url}
    api_key: { file: ./sandbox.key }
    webhook_secret: { file: ./sandbox.whsec }
    database: ${databaseOf(1)}
`,
    );
    env = {
      PAYSYNC_TENANTS_FILE: 'tenants.yaml',
      SHOP_LIVE_API_KEY: live.credentials.apiKey,
      SHOP_LIVE_WEBHOOK_SECRET: generateWebhookSecret(),
      BOOKS_SERVER: testPostgresUrl(),
      PAYSYNC_REDIS_URL: TEST_REDIS_URL,
      PAYSYNC_QUEUE_PREFIX: prefix,
      PAYSYNC_UPSTREAM_MAX_RETRIES: '0',
    };
  });

  afterAll(async () => {
    await live?.stop();
    await sandbox?.stop();
    if (postgres) {
      const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });
      for (const schema of schemas) {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
      }
      await admin.close();
    }
    rmSync(dir, { recursive: true, force: true });
    await deleteRedisPrefix(prefix);
  });

  it('tenants migrate creates and migrates each tenant’s own database', async () => {
    const before = await run(['tenants', 'list', '--json']);
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject([
      { tenant: 'shop-live', databaseReady: false },
      { tenant: 'shop-sandbox', databaseReady: false },
    ]);
    const migrated = await run(['tenants', 'migrate']);
    expect(migrated.stderr).toBe('');
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toMatch(/^✔ shop-live: applied \d+, .* is up to date/m);
    expect(migrated.stdout).toMatch(/^✔ shop-sandbox: applied \d+, .* is up to date/m);
    expect(migrated.stdout).toContain('2 tenant(s) up to date');
    const after = await run(['tenants', 'list', '--json']);
    const rows = JSON.parse(after.stdout) as { tenant: string; [key: string]: unknown }[];
    expect(rows).toMatchObject([
      {
        tenant: 'shop-live',
        environment: 'live',
        databaseReady: true,
        queuePrefix: `${prefix}:shop-live`,
        exportDir: 'data/exports/shop-live/',
      },
      {
        tenant: 'shop-sandbox',
        environment: 'sandbox',
        databaseReady: true,
        queuePrefix: `${prefix}:shop-sandbox`,
        receiptsDir: 'data/receipts/shop-sandbox/',
      },
    ]);
  });

  it('a command without --tenant is refused in one line naming the tenants, and changes nothing', async () => {
    const result = await run(['sweep', '--since', '2h']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `paysync sweep: ${join(dir, 'tenants.yaml')} lists 2 tenants (shop-live, shop-sandbox) → name one with --tenant <name> (or PAYSYNC_TENANT)`,
    ]);
    const unknown = await run(['sweep', '--tenant', 'acme-live']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /--tenant acme-live: no such tenant .* one of shop-live, shop-sandbox/,
    );
    // Without a tenants file there is one set of books; naming another is refused.
    const { PAYSYNC_TENANTS_FILE: _file, ...withoutFile } = env;
    const noFile = await runCli(['runs', '--tenant', 'shop-live'], { env: withoutFile, cwd: dir });
    expect(noFile.code).toBe(2);
    expect(noFile.stderr.trim()).toBe(
      'paysync runs: --tenant shop-live: there is no tenants file, so there is one set of books (from the PAYSYNC_* variables) → set PAYSYNC_TENANTS_FILE, or leave --tenant out',
    );
  });

  it('the same item id is booked in each tenant’s own books, from its own service', async () => {
    for (const tenant of ['shop-live', 'shop-sandbox']) {
      const swept = await run(['sweep', '--since', '2h', '--tenant', tenant]);
      expect(swept.stderr).toBe('');
      expect(swept.stdout).toMatch(/^sweep: transfers .*: 1 seen, 1 new/m);
    }
    const shown = async (tenant: string) => {
      const result = await run(['show', transferId, '--json', '--tenant', tenant]);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as { record: { amount: number; environment?: string } };
    };
    expect((await shown('shop-live')).record.amount).toBe(1000);
    expect((await shown('shop-sandbox')).record.amount).toBe(2500);
    // PAYSYNC_TENANT chooses as --tenant does (one pm2 entry per tenant).
    const chosen = await runCli(['show', transferId, '--json'], {
      env: { ...env, PAYSYNC_TENANT: 'shop-sandbox' },
      cwd: dir,
    });
    expect(JSON.parse(chosen.stdout).record.amount).toBe(2500);
    // Each database holds its own tenant's row, and only that one.
    for (const [index, amount] of [1000, 2500].entries()) {
      const handle = createDatabase(urlOf(index), { poolSize: 1 });
      const rows = await sql<{
        id: string;
        amount: number | string;
      }>`select id, amount from transfers`.execute(handle.db);
      await handle.close();
      expect(rows.rows.map((row) => [row.id, Number(row.amount)])).toEqual([[transferId, amount]]);
    }
  });

  it('paysync start without --tenant serves every tenant of the file on one port', async () => {
    const child = await spawnServe(env, { command: 'start', cwd: dir });
    try {
      // Each tenant's readiness on the ops port; the receiver's port names none.
      expect(await (await fetch(`${child.url}/readyz`)).json()).toEqual({ ready: true });
      const ready = await fetch(`${child.opsUrl}/readyz`);
      const body = (await ready.json()) as { ready: boolean; tenants: { tenant: string }[] };
      expect(body.tenants.map((tenant) => tenant.tenant)).toEqual(['shop-live', 'shop-sandbox']);
      expect(ready.status, JSON.stringify(body)).toBe(200);
      // Each tenant's path checks that tenant's signature: an unsigned event is refused.
      const unsigned = await fetch(`${child.url}/webhooks/shop-sandbox`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"id":"evt_1","type":"transfer.updated"}',
      });
      expect(unsigned.status).toBe(401);
    } finally {
      expect(await child.stop()).toBe(0);
    }
    expect(child.output()).toContain('receiver listening for 2 tenants');
  });

  it('tenants check (and doctor without --tenant) runs doctor for each tenant and names the one whose service is down', async () => {
    const ready = await run(['tenants', 'check']);
    expect(ready.stdout).toMatch(/^✔ shop-live$/m);
    expect(ready.stdout).toMatch(/^✔ shop-sandbox$/m);
    expect(ready.code).toBe(0);
    await sandbox.stop();
    const down = await run(['tenants', 'check', '--json']);
    expect(down.code).toBe(1);
    const results = JSON.parse(down.stdout) as {
      tenant: string;
      ok: boolean;
      checks: { name: string; ok: boolean }[];
    }[];
    expect(results.map((result) => [result.tenant, result.ok])).toEqual([
      ['shop-live', true],
      ['shop-sandbox', false],
    ]);
    expect(results[1]!.checks.find((check) => check.name === 'service')?.ok).toBe(false);
    const text = await run(['tenants', 'check']);
    expect(text.stdout).toContain('2 tenant(s) checked: 1 with problems (shop-sandbox)');
    // `doctor` without --tenant, the command someone paged at night types, checks them all too.
    const doctor = await run(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^✖ shop-sandbox$/m);
    expect(doctor.stdout).toContain('2 tenant(s) checked: 1 with problems (shop-sandbox)');
    // Neither key reaches the output.
    expect(text.stdout + down.stdout).not.toContain(live.credentials.apiKey);
    expect(text.stdout + down.stdout).not.toContain(sandbox.credentials.apiKey);
  });
});
