import { sql } from 'kysely';
import {
  applyPaymentIntent,
  applyTransfer,
  bookAdjustment,
  serviceBalancesAsOf,
  serviceAccountTypeOf,
} from '../../../src/ledger/index.ts';
import { dayWindow } from '../../../src/books-calendar/index.ts';
import type { TestDatabase } from '../../support/test-database.ts';
import { paymentIntentFixture, transferFixture } from '../../support/resource-fixtures.ts';

export const WEEK_DAYS = [
  '2026-11-16',
  '2026-11-17',
  '2026-11-18',
  '2026-11-19',
  '2026-11-20',
  '2026-11-21',
  '2026-11-22',
];
export const WEEK = { from: '2026-11-16T00:00:00.000Z', to: '2026-11-23T00:00:00.000Z' };
/** References that CSV quoting must survive: comma, quote, line break, non-ASCII. */
export const AWKWARD_REFERENCE = 'Facture n°42, "Adjoua Kouassi"\nÉtage 2 — ✓';

const CURRENCIES = ['XOF', 'EUR', 'TND'] as const;

/**
 * A week of books booked through the ledger's own functions (no SQL into the journal): each
 * day, payments in and payouts out in XOF, EUR and TND with fees, one payout failing after it
 * succeeded (a reversal), and one manual adjustment. Then, per day, the service's end-of-day
 * balances as snapshots, equal to the books (a reconciled week).
 */
export async function bookWeek(database: TestDatabase): Promise<void> {
  const db = database.db;
  for (const [d, day] of WEEK_DAYS.entries()) {
    for (const [i, currency] of CURRENCIES.entries()) {
      const time = (minute: number) =>
        `${day}T${String(9 + i).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00.000Z`;
      const amount = currency === 'XOF' ? 250_000 + d * 1000 : 12_345 + d * 7;
      const observed = (updatedAt: string) => ({
        via: 'webhook' as const,
        observedAt: new Date(Date.parse(updatedAt) + 60_000).toISOString(),
      });
      await applyPaymentIntent(
        db,
        paymentIntentFixture({
          id: `pi_${d}_${i}`,
          purchaseReference: i === 0 ? AWKWARD_REFERENCE : `order-${d}-${i}`,
          status: 'successful',
          amount: amount * 2,
          currency,
          createdAt: time(0),
          updatedAt: time(1),
        }),
        observed(time(1)),
      );
      const transfer = {
        id: `tr_${d}_${i}`,
        reference: i === 1 ? AWKWARD_REFERENCE : `payout-${d}-${i}`,
        amount,
        currency,
        createdAt: time(2),
        fees: [
          {
            id: `fee_${d}_${i}`,
            rate: 1,
            amount: currency === 'XOF' ? 100 : 15,
            currency,
            taxes: [],
            label: 'fee',
          },
        ],
      };
      await applyTransfer(
        db,
        transferFixture({ ...transfer, status: 'successful', updatedAt: time(3) }),
        observed(time(3)),
      );
      if (i === 2) {
        await applyTransfer(
          db,
          transferFixture({ ...transfer, status: 'failed', updatedAt: time(30) }),
          observed(time(30)),
        );
      }
    }
    if (d === 3) {
      await bookAdjustment(db, {
        postedAt: new Date().toISOString(),
        environment: 'sandbox',
        account: 'service:transfer',
        counterAccount: 'adjustments:bank-top-ups',
        currency: 'XOF',
        amount: 1_000_000,
        reason: 'top-up',
        bookedBy: 'test',
        effectiveAt: `${day}T15:00:00.000Z`,
      });
    }
  }
  await snapshotWhatTheLedgerSays(database);
}

/** The service's end-of-day balances, here equal to the books at each day's end. */
export async function snapshotWhatTheLedgerSays(database: TestDatabase): Promise<void> {
  for (const day of WEEK_DAYS) {
    const end = dayWindow(day, 'UTC').to;
    const balances = await serviceBalancesAsOf(database.db, end);
    for (const b of balances) {
      await database.db
        .insertInto('balance_snapshots')
        .values({
          environment: 'sandbox',
          account_type: serviceAccountTypeOf(b.account)!,
          currency: b.currency,
          amount: b.balance,
          as_of: end,
          taken_at: end,
          kind: 'end_of_day',
          raw: '{}',
        })
        .execute();
    }
  }
}

/** Makes one snapshot disagree with the books, as a service that moved money would. */
export async function skewOneSnapshot(database: TestDatabase): Promise<void> {
  await sql`update balance_snapshots set amount = amount + 1 where as_of = ${dayWindow(WEEK_DAYS[4]!, 'UTC').to} and currency = 'XOF' and account_type = 'transfer'`.execute(
    database.db,
  );
}
