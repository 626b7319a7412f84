import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/index.ts';
import { freePort } from '../../src/lifecycle/index.ts';
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
} from '../../src/sim/index.ts';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/index.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { runCli, startPaysync, type RunningPaysync } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect, testPostgresUrl } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { until } from '../support/until.ts';

/**
 * Issue 42.8: the least-privilege set-up of docs/operations.md ("PostgreSQL: rights and
 * upkeep"), run as written there with names of this test's own: the owner migrates, the runtime
 * role runs `paysync start` against the simulator, books what it sends and passes the audit.
 */
const DOC = resolve(import.meta.dirname, '../../docs/operations.md');
const SECTION = '## PostgreSQL: rights and upkeep';
const RIGHTS_DOC = 'docs/operations.md, "PostgreSQL: rights and upkeep"';

const id = `pr_${randomBytes(4).toString('hex')}`;
const owner = `${id}_owner`;
const app = `${id}_app`;
const schema = id;
const databaseName = new URL(testPostgresUrl()).pathname.slice(1);

/** The page's SQL block, with this test's role, schema and database names. */
function setupSql(): string {
  const page = readFileSync(DOC, 'utf8');
  const block = /```sql\n([\s\S]*?)```/.exec(page.slice(page.indexOf(SECTION)))?.[1];
  if (block === undefined) throw new Error(`no sql block under "${SECTION}" in ${DOC}`);
  return block
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n')
    .replaceAll('paysync_owner', owner)
    .replaceAll('paysync_app', app)
    .replace(/\bDATABASE paysync\b/g, `DATABASE ${databaseName}`)
    .replace(/\bpaysync\b/g, schema);
}

/** The test server's URL as `role`, with `options=-c search_path=…` when `searchPath` is given. */
function urlAs(role: string, searchPath?: string): string {
  const url = new URL(testPostgresUrl());
  url.username = role;
  url.password = '';
  if (searchPath) url.searchParams.set('options', `-c search_path=${searchPath}`);
  return url.toString();
}

let sim: RunningSimulator;
let client: UpstreamClient;
let daemon: RunningPaysync | undefined;
const prefix = uniqueRedisPrefix('rights');
const dir = mkdtempSync(join(tmpdir(), 'paysync-rights-'));
let env: (databaseUrl: string) => Record<string, string>;

async function asSuperuser<T>(
  use: (db: ReturnType<typeof createDatabase>['db']) => Promise<T>,
): Promise<T> {
  const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });
  try {
    return await use(admin.db);
  } finally {
    await admin.close();
  }
}

const postgres = testDialect() === 'postgres';

beforeAll(async () => {
  if (!postgres) return;
  const setup = setupSql();
  expect(setup).not.toMatch(/paysync/);
  // One simple query of many statements, as psql would send the block.
  await asSuperuser((db) => sql.raw(setup).execute(db));
  const webhookSecret = generateWebhookSecret();
  sim = await startSimulator({
    freezeClock: true,
    startAt: new Date(Date.now() - 3_600_000),
    webhookSecret,
    webhookRetryDelaysMs: [200, 500, 1000, 2000, 4000, 8000],
  });
  client = createUpstreamClient({
    now: () => new Date(),
    baseUrl: sim.url,
    apiKey: sim.credentials.apiKey,
    merchantId: sim.credentials.merchantId,
    rps: 5000,
    concurrency: 16,
    timeoutMs: 60_000,
  });
  env = (databaseUrl) => ({
    PAYSYNC_DATABASE_URL: databaseUrl,
    PAYSYNC_UPSTREAM_URL: sim.url,
    PAYSYNC_API_KEY: sim.credentials.apiKey,
    PAYSYNC_MERCHANT_ID: sim.credentials.merchantId,
    PAYSYNC_WEBHOOK_SECRET: webhookSecret,
    PAYSYNC_REDIS_URL: TEST_REDIS_URL,
    PAYSYNC_QUEUE_PREFIX: prefix,
    PAYSYNC_UPSTREAM_RPS: '5000',
    PAYSYNC_LOG_LEVEL: 'silent',
  });
});

afterAll(async () => {
  if (!postgres) return;
  if (daemon && daemon.child.exitCode === null) {
    daemon.child.kill('SIGKILL');
    await daemon.exited;
  }
  await sim?.stop();
  await asSuperuser(async (db) => {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
    // Roles are the whole server's: drop them too, with the grants and settings they hold.
    for (const role of [owner, app]) {
      const { rows } = await sql`select 1 from pg_roles where rolname = ${role}`.execute(db);
      if (rows.length === 0) continue;
      await sql`drop owned by ${sql.id(role)}`.execute(db);
      await sql`drop role ${sql.id(role)}`.execute(db);
    }
  });
  await deleteRedisPrefix(prefix);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!postgres)('the least-privilege PostgreSQL roles of docs/operations.md', () => {
  it('refuses the runtime role in one line before the owner has migrated: who must migrate', async () => {
    const start = await runCli(['start'], {
      env: {
        ...env(urlAs(app)),
        PAYSYNC_PORT: String(await freePort()),
        PAYSYNC_OPS_PORT: String(await freePort()),
      },
    });
    expect(start.code).toBe(1);
    expect(start.stderr.trim().split('\n')).toHaveLength(1);
    expect(start.stderr.trim()).toMatch(
      new RegExp(
        `^paysync start: postgres://${app}@.* has \\d+ migration\\(s\\) pending \\(0001_webhook_inbox, .*\\) → run \`paysync migrate\` as the schema's owner first: role ${app} may not change schema ${schema} \\(docs/operations\\.md, "PostgreSQL: rights and upkeep"\\)$`,
      ),
    );

    // A read command says the same.
    const runs = await runCliInProcess(['runs'], { env: env(urlAs(app)) });
    expect(runs.code).toBe(1);
    expect(runs.stderr.trim()).toMatch(
      new RegExp(
        `^paysync runs: .* pending migrations .* → run \`paysync migrate\` as the schema's owner first: role ${app} may not change schema ${schema} `,
      ),
    );

    const migrate = await runCliInProcess(['migrate'], { env: env(urlAs(app)) });
    expect(migrate.code).toBe(1);
    expect(migrate.stderr.trim().split('\n')).toHaveLength(1);
    expect(migrate.stderr).toContain(`42501: permission denied for schema ${schema}`);
    expect(migrate.stderr.trim()).toMatch(
      /→ run `paysync migrate` as the role that owns the schema \(docs\/operations\.md, "PostgreSQL: rights and upkeep"\)$/,
    );

    // A search_path that names no schema the role may use: the doctor says so, not "migrate".
    const lost = await runCliInProcess(['doctor', '--json'], {
      env: env(urlAs(app, `${schema}_missing`)),
    });
    const database = (
      JSON.parse(lost.stdout) as { checks: { name: string; hint?: string }[] }
    ).checks.find((check) => check.name === 'database');
    expect(database?.hint).toBe(
      `role ${app} sees no schema it may use on its search_path (${schema}_missing): grant it USAGE on paysync's schema and point its search_path there, or run \`paysync migrate\` (${RIGHTS_DOC})`,
    );
  });

  it('the owner migrates, its URL naming the schema as a tenants file does; the runtime role gets rows, not the schema', async () => {
    const migrate = await runCliInProcess(['migrate'], { env: env(urlAs(owner, schema)) });
    expect(migrate.stderr).toBe('');
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(/is up to date \(\d+ applied\)$/m);

    const rights = await asSuperuser(
      async (db) =>
        (
          await sql<{ table_name: string; rights: string }>`
            select c.relname as table_name,
              coalesce((select string_agg(privilege_type, ',' order by privilege_type)
                from information_schema.role_table_grants g
                where g.grantee = ${app} and g.table_schema = ${schema}
                  and g.table_name = c.relname), '') as rights
            from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = ${schema} and c.relkind = 'r'`.execute(db)
        ).rows,
    );
    expect(rights.length).toBeGreaterThan(30);
    expect(new Set(rights.map((row) => row.rights))).toEqual(
      new Set(['DELETE,INSERT,SELECT,UPDATE']),
    );

    const runtime = createDatabase(urlAs(app), { poolSize: 1 });
    try {
      // The journal stays append-only for the runtime role: its trigger cannot be turned off,
      // and TRUNCATE, which row triggers do not see, is refused.
      for (const statement of [
        sql`truncate journal_lines`,
        sql`alter table journals disable trigger journals_append_only`,
      ]) {
        await expect(statement.execute(runtime.db)).rejects.toMatchObject({ code: '42501' });
      }
    } finally {
      await runtime.close();
    }
  });

  it("paysync start as the runtime role books the simulator's traffic, and the audit passes against its truth", async () => {
    const runtimeEnv = env(urlAs(app));
    daemon = await startPaysync('start', runtimeEnv);
    const { port, output } = daemon;
    await until(() => fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined), {
      accept: (response) => response?.status === 200,
      message: `paysync start's /healthz on port ${port} (output: ${output()})`,
    });
    await client.createWebhook({ url: `http://127.0.0.1:${port}/webhooks` });
    // The simulator starts funded: the opening balances make the audit's balances comparable.
    const balances = await runCliInProcess(['balances'], { env: runtimeEnv });
    expect(balances.stderr).toBe('');

    await generateMixedTraffic(sim, client, {
      transfers: 12,
      paymentIntents: 12,
      refunds: 3,
      paymentRefunds: 2,
    });
    const truth = `${sim.url}/__sim/ground-truth`;
    const audit = await until(
      () => runCliInProcess(['audit', '--truth', truth], { env: runtimeEnv }),
      {
        accept: (result) => result.code === 0,
        message: `audit --truth to pass as ${app}`,
        timeoutMs: 120_000,
        intervalMs: 1000,
      },
    );
    expect(audit.stdout).toMatch(/audit clean: \d+ journals, \d+ lines, \d+ items/);
    expect(Number(/(\d+) truth items/.exec(audit.stdout)?.[1])).toBeGreaterThanOrEqual(24);

    // Retention's deletes and an export's writes, as the same role.
    const prune = await runCliInProcess(['prune'], { env: runtimeEnv });
    expect(prune.stderr).toBe('');
    expect(prune.code).toBe(0);
    const day = (offset: number) =>
      new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const exported = await runCliInProcess(
      ['export', '--from', day(-2), '--to', day(1), '--format', 'csv', '--out', join(dir, 'x.csv')],
      { env: runtimeEnv },
    );
    expect(exported.code, exported.stderr).toBe(0);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(output()).not.toMatch(/permission denied|42501/);
  });
});
