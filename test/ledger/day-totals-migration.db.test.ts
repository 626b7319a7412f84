/**
 * Migration 0014 backfills the day totals of books booked before it: a database at 0013 with
 * journals over several days (one day whose lines cancel out) gets, on `migrate`, exactly the
 * sums of its lines per (day, account, currency), and the balances read from them equal the
 * sums over lines.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.ts';
import { migrateToLatest } from '../../src/db/index.ts';
import { accountBalances } from '../../src/ledger/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

describe(`migration 0014 (ledger day totals) on ${testDialect()}`, () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await freshDatabase();
    // Back to 0013 with the shipped `down`s (the later ones first), as a database that never
    // had the table.
    const later = Object.keys(migrations)
      .filter((name) => name >= '0014_ledger_day_totals')
      .sort()
      .reverse();
    for (const name of later) {
      await migrations[name]!.down!(database.db);
      await sql`delete from kysely_migration where name = ${name}`.execute(database.db);
    }
  });

  afterEach(async () => {
    await database.cleanup();
  });

  it('sums the lines already booked per day, account and currency', async () => {
    const db = database.db;
    const books: [string, [string, string, number][]][] = [
      [
        '2026-03-01T00:00:00.000Z',
        [
          ['service:collection', 'XOF', 1000],
          ['income:payments', 'XOF', -1000],
        ],
      ],
      [
        '2026-03-01T23:59:59.999Z',
        [
          ['service:collection', 'EUR', 250],
          ['income:payments', 'EUR', -250],
        ],
      ],
      [
        '2026-03-02T10:00:00.000Z',
        [
          ['payouts:recipients', 'XOF', 700],
          ['expenses:transfer-fees', 'XOF', 100],
          ['service:transfer', 'XOF', -800],
        ],
      ],
      [
        '2026-03-02T18:00:00.000Z',
        [
          ['payouts:recipients', 'XOF', -700],
          ['expenses:transfer-fees', 'XOF', -100],
          ['service:transfer', 'XOF', 800],
        ],
      ],
      [
        '2026-03-03T08:00:00.000Z',
        [
          ['service:collection', 'XOF', 40],
          ['income:payments', 'XOF', -40],
        ],
      ],
    ];
    for (const [n, [at, lines]] of books.entries()) {
      await sql`insert into journals (id, resource_kind, resource_id, settlement_key, entry_type,
          description, effective_at, posted_at, via)
        values (${n + 1}, 'payment_intent', ${`pi_${n}`}, 'settlement-1', 'settlement', 'old',
          ${at}, ${at}, 'webhook')`.execute(db);
      for (const [i, [account, currency, amount]] of lines.entries()) {
        await sql`insert into journal_lines (journal_id, line_no, account, currency, amount)
          values (${n + 1}, ${i + 1}, ${account}, ${currency}, ${amount})`.execute(db);
      }
    }

    expect((await migrateToLatest(db))[0]).toBe('0014_ledger_day_totals');

    const totals = await sql<{ day: string; account: string; currency: string; amount: string }>`
      select day, account, currency, cast(amount as text) as amount from ledger_day_totals
      order by day, account, currency`.execute(db);
    expect(totals.rows.map((r) => [r.day, r.account, r.currency, Number(r.amount)])).toEqual([
      ['2026-03-01', 'income:payments', 'EUR', -250],
      ['2026-03-01', 'income:payments', 'XOF', -1000],
      ['2026-03-01', 'service:collection', 'EUR', 250],
      ['2026-03-01', 'service:collection', 'XOF', 1000],
      // A transfer settled and reversed within the day: zero sums, kept.
      ['2026-03-02', 'expenses:transfer-fees', 'XOF', 0],
      ['2026-03-02', 'payouts:recipients', 'XOF', 0],
      ['2026-03-02', 'service:transfer', 'XOF', 0],
      ['2026-03-03', 'income:payments', 'XOF', -40],
      ['2026-03-03', 'service:collection', 'XOF', 40],
    ]);
    expect(await accountBalances(db)).toEqual([
      { account: 'expenses:transfer-fees', currency: 'XOF', balance: 0 },
      { account: 'income:payments', currency: 'EUR', balance: -250 },
      { account: 'income:payments', currency: 'XOF', balance: -1040 },
      { account: 'payouts:recipients', currency: 'XOF', balance: 0 },
      { account: 'service:collection', currency: 'EUR', balance: 250 },
      { account: 'service:collection', currency: 'XOF', balance: 1040 },
      { account: 'service:transfer', currency: 'XOF', balance: 0 },
    ]);
  });
});
