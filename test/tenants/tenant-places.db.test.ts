import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTenantsDaemon, type RunningTenantsDaemon } from '../../src/daemon/index.ts';
import { createDatabase, migrateDatabaseAt, type DatabaseHandle } from '../../src/db/index.ts';
import { createLogger } from '../../src/logger.ts';
import { receiptFilePath } from '../../src/receipts/index.ts';
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
} from '../../src/sim/index.ts';
import { loadTenants } from '../../src/tenants/index.ts';
import { createUpstreamClient } from '../../src/upstream/index.ts';
import {
  slackHeaders,
  startHttpCollector,
  type HttpCollector,
} from '../alerts/support/sink-servers.ts';
import { queueBacklog } from '../processing/support/daemon-fixture.ts';
import { waitForCatchUp } from '../processing/support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { testDialect, testPostgresUrl } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { until } from '../support/until.ts';

/**
 * Issue 25, isolation of what leaves the books: one process serves two tenants of a tenants
 * file, two merchants whose services mint different ids. Each tenant's failed transfers are
 * alerted on its own Slack only, each tenant's receipts are archived in its own receipt folder,
 * and each tenant's daily export is written to its own export folder from its own books: the
 * folders come from the process's PAYSYNC_EXPORT_DIR and PAYSYNC_RECEIPTS_DIR, one per tenant,
 * without the file naming them.
 */
interface Side {
  readonly name: string;
  readonly sim: RunningSimulator;
  readonly slack: HttpCollector;
  readonly books: DatabaseHandle;
}

describe(`exports, receipts and alerts of two tenants in one process, on ${testDialect()}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paysync-tenant-places-'));
  const prefix = uniqueRedisPrefix('tenant-places');
  const suffix = randomBytes(4).toString('hex');
  const postgres = testDialect() === 'postgres';
  const names = ['acme-sn', 'acme-ci'] as const;
  const sides: Side[] = [];
  let daemon: RunningTenantsDaemon | undefined;
  // Yesterday, so the scheduled export (yesterday's books) holds the traffic.
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const [year, month] = yesterday.split('-');

  const databaseOf = (index: number) =>
    postgres
      ? `{ postgres_schema: places_${index}_${suffix}, url: { env: BOOKS_SERVER } }`
      : `{ sqlite: ${join(dir, `books-${index}.db`)} }`;

  beforeAll(async () => {
    const startAt = new Date(`${yesterday}T09:00:00.000Z`);
    const secrets = names.map(() => generateWebhookSecret());
    const sims = await Promise.all(
      names.map((name, index) =>
        startSimulator({
          // Different seeds: each service mints its own ids.
          seed: 40 + index,
          merchantId: `mch_${name.replace('-', '_')}`,
          freezeClock: true,
          startAt,
          webhookSecret: secrets[index]!,
          webhookRetryDelaysMs: [200, 500, 1000, 2000, 4000, 8000],
          webhookTimeoutMs: 20_000,
        }),
      ),
    );
    const slacks = await Promise.all(names.map(() => startHttpCollector()));
    const file = join(dir, 'tenants.yaml');
    writeFileSync(
      file,
      `tenants:\n${names
        .map(
          (name, index) => `  - name: ${name}
    merchant_id: ${sims[index]!.credentials.merchantId}
    environment: sandbox
    service_url: ${sims[index]!.url}
    api_key: { env: KEY_${index} }
    webhook_secret: { env: WHSEC_${index} }
    database: ${databaseOf(index)}
    settings:
      PAYSYNC_ALERT_SLACK_URL: { env: SLACK_${index} }
`,
        )
        .join('')}`,
    );
    const tenants = loadTenants(
      {
        PAYSYNC_TENANTS_FILE: file,
        PAYSYNC_REDIS_URL: TEST_REDIS_URL,
        PAYSYNC_QUEUE_PREFIX: prefix,
        PAYSYNC_EXPORT_DIR: join(dir, 'exports'),
        PAYSYNC_RECEIPTS_DIR: join(dir, 'receipts'),
        PAYSYNC_EXPORT_CRON: '*/2 * * * * *',
        PAYSYNC_UPSTREAM_RPS: '5000',
        PAYSYNC_UPSTREAM_CONCURRENCY: '16',
        PAYSYNC_WORKER_CONCURRENCY: '8',
        PAYSYNC_LOG_LEVEL: process.env.PAYSYNC_TEST_LOG_LEVEL ?? 'silent',
        BOOKS_SERVER: testPostgresUrl(),
        ...Object.fromEntries(
          names.flatMap((_, index) => [
            [`KEY_${index}`, sims[index]!.credentials.apiKey],
            [`WHSEC_${index}`, secrets[index]!],
            [`SLACK_${index}`, slacks[index]!.url],
          ]),
        ),
      },
      dir,
    ).tenants;
    for (const tenant of tenants) await migrateDatabaseAt(tenant.config.databaseUrl);
    names.forEach((name, index) =>
      sides.push({
        name,
        sim: sims[index]!,
        slack: slacks[index]!,
        books: createDatabase(tenants[index]!.config.databaseUrl),
      }),
    );
    daemon = await startTenantsDaemon({
      tenants: tenants.map((tenant) => ({ name: tenant.name, config: tenant.config })),
      logger: createLogger({ level: tenants[0]!.config.logLevel, pretty: false }),
      roles: ['receiver', 'workers', 'scheduler'],
      port: 0,
      host: '127.0.0.1',
    });
    await Promise.all(
      sides.map(async (side, index) => {
        const client = createUpstreamClient({
          now: () => new Date(),
          baseUrl: side.sim.url,
          apiKey: side.sim.credentials.apiKey,
          merchantId: side.sim.credentials.merchantId,
          rps: 5000,
          concurrency: 16,
          timeoutMs: 60_000,
        });
        await client.createWebhook({ url: `${daemon!.front!.url}/webhooks/${side.name}` });
        // Ten transfers: two fail (under the digest threshold, so one message each).
        await generateMixedTraffic(side.sim, client, {
          transfers: 10,
          paymentIntents: 6 + index,
          refunds: 0,
          paymentRefunds: 0,
          backlog: () => queueBacklog(daemon!.tenants.get(side.name)!),
        });
        const state = await waitForCatchUp(side.books.db, side.sim, 120_000);
        expect(state.statusMismatches).toEqual([]);
      }),
    );
  }, 240_000);

  afterAll(async () => {
    await daemon?.stop().catch(() => undefined);
    for (const side of sides) {
      await side.sim.stop().catch(() => undefined);
      await side.slack.close().catch(() => undefined);
      await side.books.close().catch(() => undefined);
    }
    if (postgres) {
      const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });
      for (const index of names.keys()) {
        await sql`drop schema if exists ${sql.id(`places_${index}_${suffix}`)} cascade`.execute(
          admin.db,
        );
      }
      await admin.close();
    }
    await deleteRedisPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  const failedTransfers = (side: Side) =>
    side.books.db
      .selectFrom('transfers')
      .select('id')
      .where('status', '=', 'failed')
      .execute()
      .then((rows) => rows.map((row) => row.id).sort());

  it("each tenant's failed transfers are alerted on its own Slack, and only there", async () => {
    for (const side of sides) {
      const failed = await failedTransfers(side);
      expect(failed).toHaveLength(2);
      await until(() => side.slack.received.length >= failed.length, {
        message: `${side.name}'s Slack to hear of its failed transfers`,
        timeoutMs: 30_000,
      });
      const headers = slackHeaders(side.slack);
      const named = headers.map((header) => /Transfer (tr_\w+)/.exec(header)?.[1]).filter(Boolean);
      expect(named.sort()).toEqual(failed);
    }
    // No transfer of one tenant appears on the other's channel.
    const [first, second] = sides;
    const otherIds = await failedTransfers(second!);
    expect(first!.slack.received.map((r) => r.body).join('\n')).not.toMatch(
      new RegExp(otherIds.join('|')),
    );
  });

  it("each tenant's receipts are archived in its own folder", async () => {
    for (const side of sides) {
      const own = join(dir, 'receipts', side.name);
      await until(
        async () =>
          (await side.books.db.selectFrom('receipts').select('sha256').execute()).length > 0,
        { message: `${side.name}'s receipts to be archived`, timeoutMs: 60_000 },
      );
      const rows = await side.books.db
        .selectFrom('receipts')
        .select(['resource_id', 'sha256'])
        .execute();
      for (const row of rows) {
        expect(existsSync(receiptFilePath(own, row.sha256))).toBe(true);
        expect(readFileSync(receiptFilePath(own, row.sha256), 'utf8')).toContain(row.resource_id);
      }
    }
    // Nothing lands beside the tenants' folders.
    expect(readdirSync(join(dir, 'receipts')).sort()).toEqual([...names].sort());
  });

  it("each tenant's daily export is written to its own folder, from its own books", async () => {
    for (const side of sides) {
      const folder = join(dir, 'exports', side.name, year!, month!);
      const settled = await side.books.db
        .selectFrom('transfers')
        .select('id')
        .where('status', '=', 'successful')
        .execute();
      expect(settled.length).toBeGreaterThan(0);
      // The export runs every 2 s here: the one after the books caught up holds every transfer.
      const csvFile = join(folder, `paysync-${yesterday}.csv`);
      const csv = await until(
        () => {
          if (!existsSync(join(folder, 'manifest.json')) || !existsSync(csvFile)) return undefined;
          const text = readFileSync(csvFile, 'utf8');
          return settled.every((row) => text.includes(row.id)) ? text : undefined;
        },
        {
          message: `${side.name}'s export of ${yesterday} with its settled transfers`,
          timeoutMs: 30_000,
        },
      );
      // None of the other tenant's transfers.
      const own = new Set(
        (await side.books.db.selectFrom('transfers').select('id').execute()).map((r) => r.id),
      );
      const other = sides.find((s) => s !== side)!;
      const theirs = await other.books.db.selectFrom('transfers').select('id').execute();
      for (const row of theirs) if (!own.has(row.id)) expect(csv).not.toContain(row.id);
    }
    expect(readdirSync(join(dir, 'exports')).sort()).toEqual([...names].sort());
  });
});
