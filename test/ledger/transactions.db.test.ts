import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { LedgerError, settlementJournalCount, unbalancedJournals } from '../../src/ledger/index.ts';
import { postJournal, type NewJournal } from '../../src/ledger/journal.repository.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { at, kindFixtures, ledgerSnapshot } from './support/ledger-fixtures.ts';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

const settlement: NewJournal = {
  resourceKind: 'payment_intent',
  resourceId: 'pi_1',
  settlementKey: 'settlement-1',
  entryType: 'settlement',
  description: 'payment pi_1 successful',
  effectiveAt: at(2),
  postedAt: at(3),
  via: 'webhook',
  lines: [
    { account: 'service:collection', currency: 'XOF', amount: 5000 },
    { account: 'income:payments', currency: 'XOF', amount: -5000 },
  ],
};

/** Resolves when `signal()` is called: lets one transaction wait for another's progress. */
function latch() {
  let signal!: () => void;
  const reached = new Promise<void>((resolve) => (signal = resolve));
  return { reached, signal };
}

describe(`transactions and concurrency on ${testDialect()}`, () => {
  test.each(kindFixtures)(
    '$kind: an apply inside a transaction that throws leaves nothing',
    async (fixture) => {
      const empty = await ledgerSnapshot(database.db);
      await expect(
        database.db.transaction().execute(async (trx) => {
          const outcome = await fixture.apply(trx, 'successful', at(2));
          expect(outcome.journalsPosted).toHaveLength(1);
          throw new Error('the job failed after applying');
        }),
      ).rejects.toThrow('the job failed after applying');
      expect(await ledgerSnapshot(database.db)).toEqual(empty);
    },
  );

  test.each(kindFixtures)(
    '$kind: two transactions applying the same settlement book it once',
    async (fixture) => {
      const db = database.db;
      await fixture.apply(db, fixture.openStatus, at(1));
      const firstApplied = latch();
      const first = db.transaction().execute(async (trx) => {
        const outcome = await fixture.apply(trx, 'successful', at(2));
        firstApplied.signal();
        // Hold the transaction open while the second one tries the same booking.
        await sleep(150);
        return outcome;
      });
      const second = (async () => {
        await firstApplied.reached;
        return db.transaction().execute((trx) => fixture.apply(trx, 'successful', at(2)));
      })();
      const outcomes = await Promise.all([first, second]);

      expect(outcomes.map((o) => o.journalsPosted.length)).toEqual([1, 0]);
      expect(outcomes[1]).toMatchObject({ changed: false, status: 'successful' });
      expect(await settlementJournalCount(db, fixture.kind, fixture.id)).toBe(1);
      expect(await unbalancedJournals(db)).toEqual([]);
    },
  );

  test('two first sightings racing on a new resource book it once', async () => {
    const fixture = kindFixtures.find((f) => f.kind === 'transfer')!;
    const db = database.db;
    const outcomes = await Promise.all(
      [1, 2, 3].map(() =>
        db.transaction().execute((trx) => fixture.apply(trx, 'successful', at(2))),
      ),
    );
    expect(outcomes.flatMap((o) => o.journalsPosted)).toHaveLength(1);
    expect(outcomes.filter((o) => o.changed)).toHaveLength(1);
    expect(await settlementJournalCount(db, 'transfer', 'tr_1')).toBe(1);
  });

  test('the unique (resource, settlement) key turns a concurrent second booking into a no-op', async () => {
    const db = database.db;
    const firstInserted = latch();
    const first = db.transaction().execute(async (trx) => {
      const posted = await postJournal(trx, settlement);
      firstInserted.signal();
      await sleep(150);
      return posted;
    });
    const second = (async () => {
      await firstInserted.reached;
      // On PostgreSQL this insert waits on the first transaction's uncommitted row, then
      // conflicts; no read before it could have seen that row.
      return db.transaction().execute((trx) => postJournal(trx, settlement));
    })();
    const [won, lost] = await Promise.all([first, second]);
    expect(won?.settlementKey).toBe('settlement-1');
    expect(lost).toBeUndefined();
    expect(await db.selectFrom('journal_lines').selectAll().execute()).toHaveLength(2);
  });

  test('an unbalanced journal is refused before anything is written', async () => {
    await expect(
      postJournal(database.db, {
        ...settlement,
        lines: [
          { account: 'service:collection', currency: 'XOF', amount: 5000 },
          { account: 'income:payments', currency: 'EUR', amount: -5000 },
        ],
      }),
    ).rejects.toBeInstanceOf(LedgerError);
    expect(await database.db.selectFrom('journals').selectAll().execute()).toEqual([]);
  });

  test('the journal is append-only: updates and deletes are refused by the database', async () => {
    const db = database.db;
    await postJournal(db, settlement);
    await expect(db.updateTable('journal_lines').set({ amount: 1 }).execute()).rejects.toThrow(
      /append-only/,
    );
    await expect(db.deleteFrom('journal_lines').execute()).rejects.toThrow(/append-only/);
    await expect(
      db.updateTable('journals').set({ description: 'edited' }).execute(),
    ).rejects.toThrow(/append-only/);
    await expect(db.deleteFrom('journals').execute()).rejects.toThrow(/append-only/);
    expect(
      await db.selectFrom('journal_lines').select('amount').orderBy('line_no').execute(),
    ).toEqual([{ amount: 5000 }, { amount: -5000 }]);
  });

  test('unbalancedJournals finds a journal whose lines were written behind the ledger', async () => {
    const db = database.db;
    const journal = await db
      .insertInto('journals')
      .values({
        resource_kind: 'transfer',
        resource_id: 'tr_bad',
        settlement_key: 'settlement-1',
        entry_type: 'settlement',
        reverses_journal_id: null,
        description: 'hand-written',
        effective_at: at(1),
        posted_at: at(1),
        via: 'poll',
        inbox_id: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('journal_lines')
      .values({
        journal_id: journal.id,
        line_no: 1,
        account: 'payouts:recipients',
        currency: 'XOF',
        amount: 10,
      })
      .execute();
    expect(await unbalancedJournals(db)).toEqual([
      {
        journalId: journal.id,
        resourceKind: 'transfer',
        resourceId: 'tr_bad',
        settlementKey: 'settlement-1',
        currency: 'XOF',
        sum: 10,
      },
    ]);
  });
});
