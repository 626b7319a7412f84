import { sql, type CompiledQuery, type KyselyPlugin } from 'kysely';
import { testDialect, type TestDatabase } from './test-database.ts';

/** Every statement `run` sends, compiled, on its way to the database (it still runs). */
export async function statementsOf(
  database: TestDatabase,
  run: (db: TestDatabase['db']) => Promise<unknown>,
): Promise<CompiledQuery[]> {
  const caught: CompiledQuery[] = [];
  const catching: KyselyPlugin = {
    transformQuery(args) {
      caught.push(database.db.getExecutor().compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  await run(database.db.withPlugin(catching));
  return caught;
}

/**
 * The plan: SQLite's EXPLAIN QUERY PLAN, or PostgreSQL's EXPLAIN with sequential scans off (and
 * sorts too, with `noSort`): small test tables are read whole by choice, so an index must serve.
 */
export async function planOf(
  database: TestDatabase,
  statement: CompiledQuery,
  options: { noSort?: boolean } = {},
): Promise<string> {
  if (testDialect() === 'sqlite') {
    const explained = await database.db.executeQuery<{ detail: string }>({
      ...statement,
      sql: `EXPLAIN QUERY PLAN ${statement.sql}`,
    });
    return explained.rows.map((row) => row.detail).join('\n');
  }
  return database.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    if (options.noSort) await sql`SET LOCAL enable_sort = off`.execute(trx);
    const explained = await trx.executeQuery<{ 'QUERY PLAN': string }>({
      ...statement,
      sql: `EXPLAIN ${statement.sql}`,
    });
    return explained.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}
