import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/index.ts';
import { testDialect, testPostgresUrl } from '../support/test-database.ts';
import { until } from '../support/until.ts';

/**
 * Issue 42, item 4: the sets of books of one process on one PostgreSQL server share one pool,
 * so 50 schemas busy at once hold the connections one would, and each still reads only its own.
 */
describe.skipIf(testDialect() !== 'postgres')('schemas of one server in one process', () => {
  const suffix = randomBytes(4).toString('hex');
  const schemas = Array.from({ length: 50 }, (_, i) => `shared_${suffix}_${i}`);
  const applicationName = `paysync-shared-pool-${suffix}`;
  const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });

  afterAll(async () => {
    for (const schema of schemas) {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
    }
    await admin.close();
  });

  it('50 schemas, every one busy at once, hold at most the pool size of server connections', async () => {
    await sql
      .raw(
        schemas
          .map(
            (schema, i) =>
              `create schema ${schema}; create table ${schema}.marks (n int); insert into ${schema}.marks values (${i});`,
          )
          .join('\n'),
      )
      .execute(admin.db);
    const server = new URL(testPostgresUrl());
    server.searchParams.set('application_name', applicationName);
    const handles: DatabaseHandle[] = schemas.map((schema) =>
      createDatabase(server.toString(), { searchPath: schema, poolSize: 3 }),
    );
    let peak = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where application_name = ${applicationName}`.execute(admin.db);
        peak = Math.max(peak, rows[0]!.n);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      const seen = await Promise.all(
        handles.map(async (handle) => {
          const values: number[] = [];
          for (let round = 0; round < 5; round += 1) {
            const { rows } = await sql<{
              n: number;
            }>`select n, pg_sleep(0.005) from marks`.execute(handle.db);
            values.push(rows[0]!.n);
          }
          return values;
        }),
      );
      expect(seen).toEqual(schemas.map((_, i) => [i, i, i, i, i]));
    } finally {
      watching = false;
      await watcher;
      for (const handle of handles) await handle.close();
    }
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(3);
    // The last handle closed ends the pool: nothing is left on the server (a backend leaves
    // pg_stat_activity a moment after its client has gone).
    await until(
      async () => {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where application_name = ${applicationName}`.execute(admin.db);
        return rows[0]!.n === 0;
      },
      { message: 'the shared pool to close its connections', timeoutMs: 10_000 },
    );
  });
});
