import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/index.ts';
import {
  freshDatabase,
  testDialect,
  testPostgresUrl,
  type TestDatabase,
} from '../support/test-database.ts';
import { until } from '../support/until.ts';

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.cleanup();
  database = undefined;
});

// The chaos run (issue 14) terminated paysync's PostgreSQL connections and two of three workers
// died: a connection dropped while a transaction held it between two queries made pg emit
// 'error' on a client nobody listened to, which Node turns into a crash.
describe.skipIf(testDialect() !== 'postgres')(
  'a PostgreSQL connection dropped mid-transaction',
  () => {
    it('fails that transaction, leaves the process up, and the next query gets a new connection', async () => {
      database = await freshDatabase({ migrate: false });
      const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });
      try {
        const transaction = database.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          // Between two queries, as a job is while it waits on the service: the backend goes.
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
        });
        await expect(transaction).rejects.toThrow(/terminat|connection|not queryable/i);
        const after = await sql<{ one: number }>`select 1 as one`.execute(database.db);
        expect(after.rows).toEqual([{ one: 1 }]);
      } finally {
        await admin.close();
      }
    });
  },
);
