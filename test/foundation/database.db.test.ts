import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.ts';
import { migrateToLatest, migrationStatus, UnsafeIntegerError } from '../../src/db/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.cleanup();
  database = undefined;
});

function inboxRow(dedupeKey: string) {
  return {
    dedupe_key: dedupeKey,
    event_id: null,
    event_type: 'transfer.updated',
    raw_body: Buffer.from('{"id":"evt_1","amount":1500}\n'),
    headers: '{"content-type":"application/json"}',
    received_at: '2026-11-21T10:00:00.000Z',
    last_error: null,
    processed_at: null,
  };
}

describe(`database on ${testDialect()}`, () => {
  it('migrates from empty, and a second run applies nothing', async () => {
    database = await freshDatabase({ migrate: false });
    expect((await migrationStatus(database.db)).pending).toContain('0001_webhook_inbox');
    const first = await migrateToLatest(database.db);
    expect(first).toEqual(Object.keys(migrations));
    expect(await migrateToLatest(database.db)).toEqual([]);
    expect((await migrationStatus(database.db)).pending).toEqual([]);
  });

  it.runIf(testDialect() === 'sqlite')(
    'opens SQLite in WAL mode, copying the WAL back every 10,000 pages, not 1,000',
    async () => {
      database = await freshDatabase();
      const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(database.db);
      expect(mode.rows[0]?.journal_mode).toBe('wal');
      const pages = await sql<{
        wal_autocheckpoint: number;
      }>`pragma wal_autocheckpoint`.execute(database.db);
      expect(Number(pages.rows[0]?.wal_autocheckpoint)).toBe(10_000);
    },
  );

  it('stores the raw webhook body byte for byte and defaults the status', async () => {
    database = await freshDatabase();
    await database.db.insertInto('webhook_inbox').values(inboxRow('evt_1')).execute();
    const row = await database.db.selectFrom('webhook_inbox').selectAll().executeTakeFirstOrThrow();
    expect(row.raw_body.equals(Buffer.from('{"id":"evt_1","amount":1500}\n'))).toBe(true);
    expect(row.status).toBe('received');
    expect(row.attempts).toBe(0);
    expect(typeof row.id).toBe('number');
  });

  it('refuses a second inbox row with the same dedupe key', async () => {
    database = await freshDatabase();
    await database.db.insertInto('webhook_inbox').values(inboxRow('evt_dup')).execute();
    await expect(
      database.db.insertInto('webhook_inbox').values(inboxRow('evt_dup')).execute(),
    ).rejects.toThrow(/unique|duplicate/i);
    const { count } = await database.db
      .selectFrom('webhook_inbox')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(count).toBe(1);
  });

  it('refuses an unknown inbox status', async () => {
    database = await freshDatabase();
    await expect(
      database.db
        .insertInto('webhook_inbox')
        .values({ ...inboxRow('evt_bad'), status: 'lost' as never })
        .execute(),
    ).rejects.toThrow(/check/i);
  });

  it('returns 64-bit integers as numbers and refuses ones it cannot hold exactly', async () => {
    database = await freshDatabase();
    const cast = testDialect() === 'postgres' ? sql`::bigint` : sql``;
    const safe = await sql<{ v: number }>`select 9007199254740991${cast} as v`.execute(database.db);
    expect(safe.rows[0]!.v).toBe(Number.MAX_SAFE_INTEGER);
    await expect(
      sql`select 9007199254740993${cast} as v`.execute(database.db),
    ).rejects.toBeInstanceOf(UnsafeIntegerError);
    if (testDialect() === 'postgres') {
      const summed = await sql<{
        total: number;
      }>`select sum(x) as total from (values (1::bigint), (2::bigint)) t(x)`.execute(database.db);
      expect(summed.rows[0]!.total).toBe(3);
    }
  });
});
