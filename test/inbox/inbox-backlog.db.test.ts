import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type CompiledQuery, type KyselyPlugin } from 'kysely';
import { openInboxBacklog, type InboxStatus } from '../../src/inbox/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await freshDatabase();
  const statuses: InboxStatus[] = [
    ...Array<InboxStatus>(5).fill('received'),
    ...Array<InboxStatus>(2).fill('processing'),
    ...Array<InboxStatus>(3).fill('processed'),
    'unclassified',
    'failed',
  ];
  await database.db
    .insertInto('webhook_inbox')
    .values(
      statuses.map((status, i) => ({
        dedupe_key: `event:evt_${i}`,
        event_id: `evt_${i}`,
        event_type: 'transfer.updated',
        raw_body: Buffer.from('{}'),
        headers: '{}',
        received_at: `2030-01-10T10:00:0${i % 10}.000Z`,
        status,
      })),
    )
    .execute();
});

afterAll(async () => {
  await database?.cleanup();
});

describe(`the open inbox backlog on ${testDialect()}`, () => {
  it('counts received and processing rows only', async () => {
    expect(await openInboxBacklog(database.db, 1000)).toBe(7);
  });

  it('stops counting at the bound it is given', async () => {
    expect(await openInboxBacklog(database.db, 4)).toBe(4);
  });

  it('reads the (status, received_at) index, never the whole table', async () => {
    // The statement the function really runs, caught on its way to the database.
    let compiled: CompiledQuery | undefined;
    const catching: KyselyPlugin = {
      transformQuery(args) {
        compiled ??= database.db.getExecutor().compileQuery(args.node, args.queryId);
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };
    await openInboxBacklog(database.db.withPlugin(catching), 50_000);
    const statement = compiled!;
    if (testDialect() === 'sqlite') {
      const explained = await database.db.executeQuery<{ detail: string }>({
        ...statement,
        sql: `EXPLAIN QUERY PLAN ${statement.sql}`,
      });
      const plan = explained.rows.map((row) => row.detail).join('\n');
      // An index led by status serves it (which one is the planner's choice).
      expect(plan).toMatch(/SEARCH webhook_inbox USING (COVERING )?INDEX \S+ \(status=\?/);
      expect(plan).not.toMatch(/SCAN webhook_inbox(?! USING)/);
    } else {
      // A table of twelve rows is read whole by choice; with scans off, the index must serve.
      const plan = await database.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const explained = await trx.executeQuery<{ 'QUERY PLAN': string }>({
          ...statement,
          sql: `EXPLAIN ${statement.sql}`,
        });
        return explained.rows.map((row) => row['QUERY PLAN']).join('\n');
      });
      // An index led by status serves it (which one is the planner's choice).
      expect(plan).toMatch(/Index (Only )?Scan on webhook_inbox_status_\w+/);
      expect(plan).toMatch(/Index Cond: \(status = /);
      expect(plan).not.toContain('Seq Scan');
    }
  });
});
