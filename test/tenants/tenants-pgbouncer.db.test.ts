import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/index.ts';
import {
  generateWebhookSecret,
  startSimulator,
  type RunningSimulator,
} from '../../src/sim/index.ts';
import { createUpstreamClient } from '../../src/upstream/index.ts';
import { compareWithTruth } from '../processing/support/end-state.ts';
import { spawnServe, type ServeChild } from '../receiver/support/serve-child.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { startPgbouncer, type RunningPgbouncer } from '../support/pgbouncer.ts';
import { runCli } from '../support/run-cli.ts';
import { testDialect, testPostgresUrl } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { until } from '../support/until.ts';

/**
 * Issue 42, item 3: tenants' books on one PostgreSQL server behind a real pgbouncer in
 * transaction pooling, with two server connections for every client. pgbouncer refuses the
 * `options` startup parameter a search_path used to travel in, and hands a server connection to
 * whichever client comes next after each transaction: each transaction must name its schema.
 */
describe.skipIf(testDialect() !== 'postgres')('tenants behind pgbouncer', () => {
  const suffix = randomBytes(4).toString('hex');
  const schemas = [`pgb_a_${suffix}`, `pgb_b_${suffix}`];
  let bouncer: RunningPgbouncer;

  beforeAll(async () => {
    bouncer = await startPgbouncer({ mode: 'transaction', serverConnections: 2 });
  });

  afterAll(async () => {
    await bouncer?.stop();
    const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });
    for (const schema of schemas) {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
    }
    await admin.close();
  });

  const through = (schema: string) => {
    const url = new URL(bouncer.url);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return url.toString();
  };

  it('two schemas interleaved on two shared server connections each read and write only their own', async () => {
    const admin = createDatabase(bouncer.url, { poolSize: 1 });
    const handles: DatabaseHandle[] = [];
    try {
      for (const schema of schemas) {
        await sql`create schema if not exists ${sql.id(schema)}`.execute(admin.db);
        await sql`create table ${sql.table(`${schema}.notes`)} (n int)`.execute(admin.db);
      }
      handles.push(...schemas.map((schema) => createDatabase(through(schema), { poolSize: 4 })));
      const [a, b] = handles as [DatabaseHandle, DatabaseHandle];
      // Statements alone, parameterised and not, and transactions, all at once on both.
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          await sql`insert into notes (n) values (${i})`.execute(a.db);
          await b.db.transaction().execute(async (trx) => {
            await sql`insert into notes (n) values (${100 + i})`.execute(trx);
            await sql`insert into notes (n) values (${200 + i})`.execute(trx);
          });
          await sql`select count(*) from notes`.execute(i % 2 ? a.db : b.db);
        }),
      );
      const count = async (schema: string) =>
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from ${sql.table(`${schema}.notes`)}`.execute(admin.db)
        ).rows[0]!.n;
      expect([await count(schemas[0]!), await count(schemas[1]!)]).toEqual([20, 40]);
      // A failed statement leaves no transaction open on the shared server connection.
      await expect(sql`insert into notes (n) values ('x')`.execute(a.db)).rejects.toThrow();
      expect(
        (await sql<{ s: string }>`select current_schema() as s`.execute(a.db)).rows[0]!.s,
      ).toBe(schemas[0]);
    } finally {
      for (const handle of handles) await handle.close();
      for (const schema of schemas) {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
      }
      await admin.close();
    }
  });

  describe('tenants migrate, start and audit, each tenant through pgbouncer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysync-pgbouncer-'));
    const prefix = uniqueRedisPrefix('tenants-pgbouncer');
    const names = ['shop-a', 'shop-b'];
    const sims: RunningSimulator[] = [];
    let env: Record<string, string>;
    let child: ServeChild | undefined;

    beforeAll(async () => {
      const startAt = new Date(Date.now() - 3_600_000);
      const secrets = names.map(() => generateWebhookSecret());
      for (const [index, name] of names.entries()) {
        sims.push(
          await startSimulator({
            seed: 42 + index,
            merchantId: `mch_${name.replace('-', '_')}`,
            freezeClock: true,
            startAt,
            webhookSecret: secrets[index],
          }),
        );
      }
      writeFileSync(
        join(dir, 'tenants.yaml'),
        `tenants:\n${names
          .map(
            (name, index) => `  - name: ${name}
    merchant_id: ${sims[index]!.credentials.merchantId}
    environment: sandbox
    service_url: ${sims[index]!.url}
    api_key: { env: KEY_${index} }
    webhook_secret: { env: SECRET_${index} }
    database: { postgres_schema: ${schemas[index]}, url: { env: BOUNCER_URL } }
`,
          )
          .join('')}`,
      );
      env = {
        PAYSYNC_TENANTS_FILE: 'tenants.yaml',
        BOUNCER_URL: bouncer.url,
        PAYSYNC_REDIS_URL: TEST_REDIS_URL,
        PAYSYNC_QUEUE_PREFIX: prefix,
        ...Object.fromEntries(
          sims.flatMap((sim, index) => [
            [`KEY_${index}`, sim.credentials.apiKey],
            [`SECRET_${index}`, secrets[index]!],
          ]),
        ),
      };
    });

    afterAll(async () => {
      await child?.stop();
      for (const sim of sims) await sim.stop();
      rmSync(dir, { recursive: true, force: true });
      await deleteRedisPrefix(prefix);
    });

    it('books every item of both services once, in its own schema, and each audit is clean', async () => {
      const migrated = await runCli(['tenants', 'migrate'], { env, cwd: dir, timeoutMs: 60_000 });
      expect(migrated.stderr).toBe('');
      expect(migrated.stdout).toContain('2 tenant(s) up to date');

      child = await spawnServe(env, { command: 'start', cwd: dir, startTimeoutMs: 60_000 });
      await Promise.all(
        sims.map(async (sim, index) => {
          const client = createUpstreamClient({
            now: () => new Date(),
            baseUrl: sim.url,
            apiKey: sim.credentials.apiKey,
            merchantId: sim.credentials.merchantId,
            rps: 5000,
            concurrency: 8,
            timeoutMs: 30_000,
          });
          await client.createWebhook({ url: `${child!.url}/webhooks/${names[index]}` });
          await generateMixedTraffic(sim, client, {
            transfers: 6,
            paymentIntents: 5,
            refunds: 2,
            paymentRefunds: 1,
          });
        }),
      );
      // Read each tenant's books straight from the server, not through pgbouncer.
      for (const [index, sim] of sims.entries()) {
        const books = createDatabase(testPostgresUrl(), { searchPath: schemas[index] });
        try {
          const state = await until(() => compareWithTruth(books.db, sim), {
            accept: (s) => s.statusMismatches.length === 0 && s.settlementProblems.length === 0,
            message: `${names[index]}'s books to match its service`,
            timeoutMs: 90_000,
            intervalMs: 500,
          });
          expect(state.items).toBe(14);
          expect(state.unbalancedJournals).toEqual([]);
        } finally {
          await books.close();
        }
      }
      expect(await child.stop()).toBe(0);
      child = undefined;

      for (const [index, sim] of sims.entries()) {
        // The first balance snapshot books the service's opening balances (docs/balances.md).
        const balances = await runCli(['balances', '--tenant', names[index]!], { env, cwd: dir });
        expect(balances.code, balances.stderr).toBe(0);
        const truth = join(dir, `truth-${index}.json`);
        writeFileSync(truth, JSON.stringify(sim.control.groundTruth()));
        const audit = await runCli(['audit', '--truth', truth, '--tenant', names[index]!], {
          env,
          cwd: dir,
          timeoutMs: 60_000,
        });
        expect(audit.stdout + audit.stderr).toMatch(/audit clean/);
        expect(audit.code).toBe(0);
      }
    }, 180_000);
  });
});
