import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDatabase, isDatabaseUnavailable } from '../../src/db/index.ts';
import { closedPort } from '../support/run-cli.ts';
import {
  freshDatabase,
  testDialect,
  testPostgresUrl,
  type TestDatabase,
} from '../support/test-database.ts';
import { until } from '../support/until.ts';
import { cleanupsAfterEach } from '../support/cleanups.ts';

const cleanups = cleanupsAfterEach();

/** The error a query rejects with (the test fails when it does not reject). */
async function failureOf(query: Promise<unknown>): Promise<unknown> {
  return query.then(
    () => expect.fail('the query was expected to fail'),
    (error: unknown) => error,
  );
}

/**
 * isDatabaseUnavailable, on the errors the real drivers throw: the ops API answers 503 with
 * Retry-After for these (docs/tenants.md) and 500 for anything else, such as a broken constraint.
 */
describe(`isDatabaseUnavailable on real ${testDialect()} errors`, () => {
  let database: TestDatabase;

  it('is false for a statement the database refused on its merits (a duplicate key)', async () => {
    database = await freshDatabase();
    cleanups.push(() => database.cleanup());
    const row = { key: 'unavailable-test', value: '{}', updated_at: new Date().toISOString() };
    await database.db.insertInto('service_state').values(row).execute();
    const duplicate = await failureOf(
      database.db.insertInto('service_state').values(row).execute(),
    );
    expect(isDatabaseUnavailable(duplicate)).toBe(false);
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false);
  });

  it.skipIf(testDialect() !== 'postgres')(
    'is true for a server that refuses connections, and for a terminated backend',
    async () => {
      const url = new URL(testPostgresUrl());
      url.port = String(await closedPort());
      const nowhere = createDatabase(url.toString(), { poolSize: 1 });
      cleanups.push(() => nowhere.close());
      expect(isDatabaseUnavailable(await failureOf(sql`select 1`.execute(nowhere.db)))).toBe(true);

      const reachable = createDatabase(testPostgresUrl(), { poolSize: 1 });
      const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });
      cleanups.push(
        () => reachable.close(),
        () => admin.close(),
      );
      const terminated = await failureOf(
        reachable.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          const pid = rows[0]!.pid;
          await sql`select pg_terminate_backend(${pid})`.execute(admin.db);
          await until(
            async () =>
              (
                await sql<{
                  n: number;
                }>`select count(*)::int as n from pg_stat_activity where pid = ${pid}`.execute(
                  admin.db,
                )
              ).rows[0]!.n === 0,
            { message: `backend ${pid} gone` },
          );
          await sql`select 1`.execute(trx);
        }),
      );
      expect(isDatabaseUnavailable(terminated)).toBe(true);
    },
  );

  it.skipIf(testDialect() !== 'sqlite')(
    'is true for a file SQLite cannot open (SQLITE_CANTOPEN)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'paysync-cantopen-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const BetterSqlite3 = (await import('better-sqlite3')).default;
      // A file that is not there, opened read-only (as a volume that went away leaves it).
      const cantOpen = await failureOf(
        (async () => new BetterSqlite3(join(dir, 'books.db'), { readonly: true }))(),
      );
      expect((cantOpen as { code?: string }).code).toBe('SQLITE_CANTOPEN');
      expect(isDatabaseUnavailable(cantOpen)).toBe(true);
    },
  );
});
