import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  applyPaymentIntent,
  applyPaymentRefund,
  applyRefund,
  applyTransfer,
  journalsFor,
  unbalancedJournals,
  type ApplyOutcome,
  type JournalLine,
  type LedgerResourceKind,
} from '../../src/ledger/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import {
  at,
  paymentIntentFixture,
  paymentRefundFixture,
  refundFixture,
  seen,
  sumsPerCurrency,
  transferFixture,
} from './support/ledger-fixtures.ts';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

interface PostingCase {
  readonly name: string;
  readonly kind: LedgerResourceKind;
  readonly id: string;
  /** Anything the resource needs on file first (e.g. the transfer a refund returns). */
  readonly before?: (db: TestDatabase['db']) => Promise<unknown>;
  readonly apply: (db: TestDatabase['db']) => Promise<ApplyOutcome>;
  readonly lines: JournalLine[];
}

const cases: PostingCase[] = [
  {
    name: 'successful payment intent: Dr service:collection / Cr income:payments',
    kind: 'payment_intent',
    id: 'pi_1',
    apply: (db) =>
      applyPaymentIntent(db, paymentIntentFixture({ status: 'successful', amount: 5000 }), seen()),
    lines: [
      { account: 'service:collection', currency: 'XOF', amount: 5000 },
      { account: 'income:payments', currency: 'XOF', amount: -5000 },
    ],
  },
  {
    name: 'successful transfer: Dr payouts:recipients + Dr expenses:transfer-fees / Cr service:transfer',
    kind: 'transfer',
    id: 'tr_1',
    apply: (db) => applyTransfer(db, transferFixture({ status: 'successful' }), seen()),
    lines: [
      { account: 'payouts:recipients', currency: 'XOF', amount: 10000 },
      { account: 'expenses:transfer-fees', currency: 'XOF', amount: 100 },
      { account: 'service:transfer', currency: 'XOF', amount: -10100 },
    ],
  },
  {
    name: 'successful IRT transfer credits service:transfer-irt',
    kind: 'transfer',
    id: 'tr_irt',
    apply: (db) =>
      applyTransfer(
        db,
        transferFixture({
          id: 'tr_irt',
          status: 'successful',
          isIrt: true,
          amount: 20000,
          fees: [{ id: 'f', rate: 2, amount: 400, currency: 'XOF' }],
        }),
        seen(),
      ),
    lines: [
      { account: 'payouts:recipients', currency: 'XOF', amount: 20000 },
      { account: 'expenses:transfer-fees', currency: 'XOF', amount: 400 },
      { account: 'service:transfer-irt', currency: 'XOF', amount: -20400 },
    ],
  },
  {
    name: 'fees in another currency: one credit per currency, each balancing',
    kind: 'transfer',
    id: 'tr_fx',
    apply: (db) =>
      applyTransfer(
        db,
        transferFixture({
          id: 'tr_fx',
          status: 'successful',
          amount: 10000,
          currency: 'XOF',
          fees: [
            { id: 'f1', rate: 1, amount: 100, currency: 'XOF' },
            { id: 'f2', rate: 0, amount: 3, currency: 'EUR' },
            { id: 'f3', rate: 0, amount: 0, currency: 'EUR' },
          ],
        }),
        seen(),
      ),
    lines: [
      { account: 'payouts:recipients', currency: 'XOF', amount: 10000 },
      { account: 'expenses:transfer-fees', currency: 'XOF', amount: 100 },
      { account: 'expenses:transfer-fees', currency: 'EUR', amount: 3 },
      { account: 'service:transfer', currency: 'XOF', amount: -10100 },
      { account: 'service:transfer', currency: 'EUR', amount: -3 },
    ],
  },
  {
    name: 'successful transfer refund: Dr service:transfer / Cr payouts:recipients',
    kind: 'refund',
    id: '41',
    apply: (db) => applyRefund(db, refundFixture({ status: 'successful' }), seen()),
    lines: [
      { account: 'service:transfer', currency: 'XOF', amount: 10000 },
      { account: 'payouts:recipients', currency: 'XOF', amount: -10000 },
    ],
  },
  {
    name: 'refund of an IRT transfer goes back to service:transfer-irt',
    kind: 'refund',
    id: '42',
    before: (db) =>
      applyTransfer(
        db,
        transferFixture({ id: 'tr_irt', isIrt: true, status: 'successful' }),
        seen(),
      ),
    apply: (db) =>
      applyRefund(
        db,
        refundFixture({ id: 42, transactionId: 'tr_irt', status: 'successful' }),
        seen(),
      ),
    lines: [
      { account: 'service:transfer-irt', currency: 'XOF', amount: 10000 },
      { account: 'payouts:recipients', currency: 'XOF', amount: -10000 },
    ],
  },
  {
    name: 'successful payment refund: Dr refunds:customers / Cr service:collection',
    kind: 'payment_refund',
    id: '41',
    apply: (db) =>
      applyPaymentRefund(db, paymentRefundFixture({ status: 'successful', amount: 2000 }), seen()),
    lines: [
      { account: 'refunds:customers', currency: 'XOF', amount: 2000 },
      { account: 'service:collection', currency: 'XOF', amount: -2000 },
    ],
  },
];

describe(`posting rules on ${testDialect()}`, () => {
  test.each(cases)('$name', async ({ kind, id, before, apply, lines }) => {
    await before?.(database.db);
    const outcome = await database.db.transaction().execute((trx) => apply(trx));

    expect(outcome.changed).toBe(true);
    expect(outcome.status).toBe('successful');
    expect(outcome.journalsPosted).toHaveLength(1);
    expect(outcome.journalsPosted[0]).toMatchObject({
      settlementKey: 'settlement-1',
      entryType: 'settlement',
    });
    const journals = await journalsFor(database.db, kind, id);
    expect(journals).toHaveLength(1);
    expect(journals[0]!.lines).toEqual(lines);
    for (const sum of Object.values(sumsPerCurrency(journals[0]!.lines))) expect(sum).toBe(0);
    expect(await unbalancedJournals(database.db)).toEqual([]);
  });

  test.each([
    [
      'failed transfer',
      () => applyTransfer(database.db, transferFixture({ status: 'failed' }), seen()),
    ],
    [
      'pending transfer',
      () => applyTransfer(database.db, transferFixture({ status: 'pending' }), seen()),
    ],
    [
      'failed payment intent',
      () => applyPaymentIntent(database.db, paymentIntentFixture({ status: 'failed' }), seen()),
    ],
    [
      'canceled payment intent',
      () => applyPaymentIntent(database.db, paymentIntentFixture({ status: 'canceled' }), seen()),
    ],
    [
      'pending_manual refund',
      () => applyRefund(database.db, refundFixture({ status: 'pending_manual' }), seen()),
    ],
    [
      'failed payment refund',
      () => applyPaymentRefund(database.db, paymentRefundFixture({ status: 'failed' }), seen()),
    ],
  ])('%s posts nothing', async (_name, apply) => {
    const outcome = await apply();
    expect(outcome.changed).toBe(true);
    expect(outcome.journalsPosted).toEqual([]);
    expect(await database.db.selectFrom('journals').selectAll().execute()).toEqual([]);
  });

  test('a failed transfer keeps its failure cause in the mirror', async () => {
    const failed = transferFixture({
      status: 'failed',
      updatedAt: at(9),
      failureCause: { code: 'insufficient_balance', message: 'Not enough money', params: [] },
    });
    await applyTransfer(database.db, failed, seen());
    const row = await database.db.selectFrom('transfers').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'failed',
      failure_code: 'insufficient_balance',
      failure_message: 'Not enough money',
      updated_at: at(9),
    });
    expect(JSON.parse(row.raw)).toEqual(failed);
  });
});
