import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/index.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { until } from '../support/until.ts';

/**
 * Issue 42.8: `doctor` warns when PostgreSQL's autovacuum is off, for the server or for a table
 * of paysync's schema (docs/operations.md, "PostgreSQL: rights and upkeep"). SQLite has no such
 * check: the line is PostgreSQL's alone.
 */
interface DoctorJson {
  ok: boolean;
  checks: { name: string; status: 'ok' | 'warn' | 'fail'; message: string; hint?: string }[];
}

/** The doctor's environment; the service is unreachable on purpose (its check fails fast). */
function doctorEnv(databaseUrl: string): Record<string, string> {
  return {
    PAYSYNC_DATABASE_URL: databaseUrl,
    PAYSYNC_UPSTREAM_URL: 'http://127.0.0.1:9',
    PAYSYNC_API_KEY: 'sk_test_upkeep_0000',
    PAYSYNC_MERCHANT_ID: 'm_upkeep',
  };
}

async function upkeepCheck(databaseUrl: string) {
  const result = await runCliInProcess(['doctor', '--json'], { env: doctorEnv(databaseUrl) });
  const report = JSON.parse(result.stdout) as DoctorJson;
  return report.checks.find((check) => check.name === 'upkeep');
}

async function onServer<T>(url: string, use: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const handle = createDatabase(url, { poolSize: 1 });
  try {
    return await use(handle.db);
  } finally {
    await handle.close();
  }
}

let database: TestDatabase | undefined;
let server: PrivatePostgres | undefined;
afterAll(async () => {
  await database?.cleanup();
  await server?.stop();
});

describe.skipIf(testDialect() !== 'postgres')("doctor's upkeep line on PostgreSQL", () => {
  it('names the tables of its schema whose autovacuum is turned off', async () => {
    database = await freshDatabase();
    const before = await upkeepCheck(database.url);
    expect(before?.message).not.toContain('autovacuum_enabled');

    await sql`alter table journal_lines set (autovacuum_enabled = false)`.execute(database.db);
    await sql`alter table webhook_inbox set (autovacuum_enabled = off, fillfactor = 90)`.execute(
      database.db,
    );
    const after = await upkeepCheck(database.url);
    expect(after).toMatchObject({ status: 'warn' });
    expect(after!.message).toContain(
      `autovacuum_enabled = false on 2 tables of schema ${database.schema} (journal_lines, webhook_inbox)`,
    );
    expect(after!.hint).toMatch(/^(.*; )?ALTER TABLE … RESET \(autovacuum_enabled\) on each \(/);

    const text = await runCliInProcess(['doctor'], { env: doctorEnv(database.url) });
    expect(text.stdout).toMatch(/^⚠ upkeep +.*autovacuum_enabled = false on 2 tables .* → /m);
    expect(text.stdout).not.toMatch(/^✖ upkeep/m);
  });

  it('warns when the server runs with autovacuum off, and is content once it is on again', async () => {
    server = await startPrivatePostgres();
    const on = await upkeepCheck(server.url);
    expect(on).toMatchObject({
      status: 'ok',
      message: 'autovacuum on for the server and every table of schema public',
    });

    // A server of this test's own: the shared one's settings are never touched.
    await onServer(server.url, async (db) => {
      await sql`alter system set autovacuum = off`.execute(db);
      await sql`select pg_reload_conf()`.execute(db);
    });
    // The postmaster rereads its settings a moment later; new sessions then see them.
    const url = server.url;
    await until(
      () =>
        onServer(
          url,
          async (db) =>
            (await sql<{ autovacuum: string }>`show autovacuum`.execute(db)).rows[0]?.autovacuum,
        ),
      {
        accept: (value) => value === 'off',
        message: 'the private server to reload with autovacuum off',
      },
    );
    const off = await upkeepCheck(server.url);
    expect(off).toMatchObject({ status: 'warn' });
    expect(off!.message).toMatch(
      /^autovacuum off on this PostgreSQL server: planner statistics go stale after a burst of rows/,
    );
    expect(off!.hint).toMatch(
      /^set autovacuum = on in postgresql\.conf \(or the provider's parameters\) and reload \(docs\/operations\.md, "PostgreSQL: rights and upkeep"\)$/,
    );
    const text = await runCliInProcess(['doctor'], { env: doctorEnv(server.url) });
    expect(text.stdout).toMatch(/^⚠ upkeep +autovacuum off on this PostgreSQL server: /m);
  });
});
