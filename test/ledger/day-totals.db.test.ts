/**
 * Issue 22, cost flat in data size: the ledger's day totals (migration 0014). Books written by
 * the real ledger over several days (batches and single entries, reversals, late changes,
 * adjustments and opening balances) must leave day totals equal to the sums of their lines, and
 * the balance reads built on them must return exactly what the old sums over every line
 * returned. The old queries are written here, as the oracle.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/index.ts';
import {
  accountBalances,
  applyBatch,
  applyPaymentIntent,
  applyPaymentRefund,
  applyTransfer,
  balancesBefore,
  bookAdjustment,
  bookOpeningBalance,
  insertClosedPeriod,
  serviceBalancesAsOf,
  type AccountBalance,
  type AccountName,
  type BatchEntry,
} from '../../src/ledger/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import {
  paymentIntentFixture,
  paymentRefundFixture,
  seen,
  transferFixture,
} from './support/ledger-fixtures.ts';

const DAY = 86_400_000;
const FIRST = Date.UTC(2026, 2, 1);
/** An instant `day` days after 2026-03-01 and `ms` into that day. */
const instant = (day: number, ms: number) => new Date(FIRST + day * DAY + ms).toISOString();
const LAST_MS = DAY - 1;

/** The day totals as the sums of the lines they cache: the definition, as a query. */
async function lineSumsPerDay(db: Executor) {
  const result = await sql<{ day: string; account: string; currency: string; amount: string }>`
    select substr(j.effective_at, 1, 10) as day, l.account, l.currency,
      cast(sum(l.amount) as text) as amount
    from journal_lines l join journals j on j.id = l.journal_id
    group by substr(j.effective_at, 1, 10), l.account, l.currency`.execute(db);
  return result.rows.map((r) => ({ ...r, amount: Number(r.amount) })).sort(byKey);
}

async function storedDayTotals(db: Executor) {
  const result = await sql<{ day: string; account: string; currency: string; amount: string }>`
    select day, account, currency, cast(amount as text) as amount
    from ledger_day_totals`.execute(db);
  return result.rows.map((r) => ({ ...r, amount: Number(r.amount) })).sort(byKey);
}

const key = (r: { day?: string; account: string; currency: string }) =>
  `${r.day ?? ''} ${r.account} ${r.currency}`;
const byKey = (a: Parameters<typeof key>[0], b: Parameters<typeof key>[0]) =>
  key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/** The old reads (before migration 0014): a sum over every journal line. */
async function oldBalances(
  db: Executor,
  where: 'all' | { before: string } | { serviceAsOf: string },
): Promise<AccountBalance[]> {
  const condition =
    where === 'all'
      ? sql``
      : 'before' in where
        ? sql`where j.effective_at < ${where.before}`
        : sql`where l.account like 'service:%' and j.effective_at <= ${where.serviceAsOf}`;
  const result = await sql<{ account: string; currency: string; balance: string }>`
    select l.account, l.currency, cast(sum(l.amount) as text) as balance
    from journal_lines l join journals j on j.id = l.journal_id ${condition}
    group by l.account, l.currency`.execute(db);
  return result.rows
    .map((r) => ({ account: r.account, currency: r.currency, balance: Number(r.balance) }))
    .sort(byKey) as AccountBalance[];
}

describe(`ledger day totals on ${testDialect()}`, () => {
  let database: TestDatabase;
  /** Every instant a journal is effective at, and the instants around each day's edges. */
  const probes = new Set<string>();

  beforeAll(async () => {
    database = await freshDatabase();
    const db = database.db;
    // A closed first day: what the service changes in it is booked at the start of day 1.
    await insertClosedPeriod(db, {
      environment: 'sandbox',
      period: '2026-03-01',
      window_from: instant(0, 0),
      window_to: instant(1, 0),
      closed_at: instant(1, 0),
      closed_by: 'test',
      forced: 0,
      reason: null,
      exports: '{}',
    });
    await bookOpeningBalance(db, {
      environment: 'sandbox',
      account: 'service:collection',
      currency: 'XOF',
      amount: 50_000,
      effectiveAt: instant(1, 0),
      reason: 'opening',
      bookedBy: 'test',
      postedAt: instant(1, 0),
    });
    const batch: BatchEntry[] = [];
    for (let n = 0; n < 60; n += 1) {
      const day = n % 6;
      // Some at the last millisecond of a day and some at its first: the edges of a day total.
      const ms = n % 5 === 0 ? LAST_MS : n % 5 === 1 ? 0 : (n * 7_919_000) % DAY;
      const updatedAt = instant(day, ms);
      const currency = n % 4 === 3 ? 'EUR' : 'XOF';
      const intent = paymentIntentFixture({
        id: `pi_${n}`,
        purchaseReference: `order-${n}`,
        status: 'successful',
        amount: 1000 + n,
        currency,
        updatedAt,
      });
      const observation = seen({ observedAt: instant(day, LAST_MS) });
      if (n % 2 === 0)
        batch.push({ fetched: { kind: 'payment_intent', state: intent }, observation });
      else await db.transaction().execute((trx) => applyPaymentIntent(trx, intent, observation));
      if (n % 3 === 0) {
        const transfer = transferFixture({
          id: `tr_${n}`,
          reference: `payout-${n}`,
          status: 'successful',
          amount: 700 + n,
          updatedAt,
        });
        await db.transaction().execute((trx) => applyTransfer(trx, transfer, observation));
        // Failed later: a reversal, the same day for some (a zero sum) and the next for others.
        const failed = transferFixture({
          ...transfer,
          status: 'failed',
          updatedAt: instant(n % 2 === 0 ? day : day + 1, n % 2 === 0 ? LAST_MS : 60_000),
        });
        await db.transaction().execute((trx) => applyTransfer(trx, failed, observation));
      }
      if (n % 4 === 1) {
        const refund = paymentRefundFixture({
          id: 500 + n,
          paymentIntentId: `pi_${n}`,
          status: 'successful',
          amount: 300,
          currency,
          updatedAt: instant(day + 1, ms),
        });
        await db.transaction().execute((trx) => applyPaymentRefund(trx, refund, observation));
      }
    }
    for (let start = 0; start < batch.length; start += 7) {
      await db.transaction().execute((trx) => applyBatch(trx, batch.slice(start, start + 7)));
    }
    // Two pairs cancel out: from day 5 on (`zero`), and within day 3 (`same-day`, a day total
    // of zero).
    for (const [day, amount, counterAccount] of [
      [2, -1_500, 'adjustments:manual'],
      [4, 2_500, 'adjustments:zero'],
      [5, -2_500, 'adjustments:zero'],
      [3, 900, 'adjustments:same-day'],
      [3, -900, 'adjustments:same-day'],
    ] as const) {
      await bookAdjustment(db, {
        environment: 'sandbox',
        account: 'service:cross-border',
        counterAccount: counterAccount as AccountName,
        currency: 'XOF',
        amount,
        reason: 'fees the service took',
        bookedBy: 'test',
        effectiveAt: instant(day, 43_200_000),
        postedAt: instant(day, 43_200_000),
      });
    }
    const effective = await sql<{ at: string }>`
      select distinct effective_at as at from journals`.execute(db);
    for (const row of effective.rows) probes.add(row.at);
    for (let day = -1; day <= 8; day += 1) {
      for (const ms of [0, 1, 43_200_000, LAST_MS]) probes.add(instant(day, ms));
    }
    probes.add(instant(3, 0).slice(0, 10));
  });

  afterAll(async () => {
    await database?.cleanup();
  });

  it('keeps a day total for every (day, account, currency) with lines, equal to their sum', async () => {
    const sums = await lineSumsPerDay(database.db);
    expect(sums.length).toBeGreaterThan(20);
    // Zero sums are kept: the same-day adjustments leave their counter account at zero.
    expect(sums.some((row) => row.amount === 0)).toBe(true);
    expect(await storedDayTotals(database.db)).toEqual(sums);
  });

  it('reads the balances now exactly as the sum over every line did', async () => {
    const now = await accountBalances(database.db);
    expect(now).toEqual(await oldBalances(database.db, 'all'));
    expect(now.map((b) => b.account)).toEqual(
      expect.arrayContaining([
        'service:collection',
        'service:transfer',
        'equity:opening-balances',
        'adjustments:zero',
      ]),
    );
  });

  it('reads the balances before and as of any instant exactly as the sums over lines did', async () => {
    let zeroSums = 0;
    for (const at of probes) {
      const before = [...(await balancesBefore(database.db, at))].sort(byKey);
      expect(before, `balancesBefore(${at})`).toEqual(
        await oldBalances(database.db, { before: at }),
      );
      zeroSums += before.filter((b) => b.balance === 0).length;
      expect(await serviceBalancesAsOf(database.db, at), `serviceBalancesAsOf(${at})`).toEqual(
        await oldBalances(database.db, { serviceAsOf: at }),
      );
    }
    // The comparison covers the zero sums balancesBefore promises.
    expect(zeroSums).toBeGreaterThan(0);
  });

  it('a day total out of step with its lines changes the balances read (the oracle can fail)', async () => {
    await sql`update ledger_day_totals set amount = amount + 1
      where account = 'service:collection' and currency = 'XOF' and day = '2026-03-02'`.execute(
      database.db,
    );
    try {
      expect(await accountBalances(database.db)).not.toEqual(await oldBalances(database.db, 'all'));
    } finally {
      await sql`update ledger_day_totals set amount = amount - 1
        where account = 'service:collection' and currency = 'XOF' and day = '2026-03-02'`.execute(
        database.db,
      );
    }
  });
});
