import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../src/db/index.ts';
import { dialectOfDb } from '../../../src/db/index.ts';
import {
  applyPaymentIntent,
  applyPaymentRefund,
  applyRefund,
  applyTransfer,
} from '../../../src/ledger/index.ts';
import type { GroundTruth } from '../../../src/audit/index.ts';
import {
  at,
  paymentIntentFixture,
  paymentRefundFixture,
  refundFixture,
  seen,
  transferFixture,
} from '../../ledger/support/ledger-fixtures.ts';

/**
 * Books that are right, written by the real ledger: a settled intent (`pi_1`), an open one
 * (`pi_3`), settled transfers (`tr_1`, `tr_3`, the same lines as `tr_2`), a transfer settled
 * then failed (`tr_2`: settlement plus reversal), a refund of `tr_1` and a payment refund of
 * `pi_1`. Each test then breaks them in exactly one way.
 */
export async function writeCleanBooks(db: Kysely<Database>): Promise<void> {
  await applyPaymentIntent(db, paymentIntentFixture({ status: 'successful' }), seen());
  await applyPaymentIntent(
    db,
    paymentIntentFixture({ id: 'pi_3', purchaseReference: 'order-3', amount: 2500 }),
    seen(),
  );
  await applyTransfer(db, transferFixture({ status: 'successful' }), seen());
  await applyTransfer(
    db,
    transferFixture({ id: 'tr_2', reference: 'payout-2', amount: 3000, status: 'successful' }),
    seen(),
  );
  await applyTransfer(
    db,
    transferFixture({
      id: 'tr_2',
      reference: 'payout-2',
      amount: 3000,
      status: 'failed',
      updatedAt: at(2),
    }),
    seen(),
  );
  await applyTransfer(
    db,
    transferFixture({ id: 'tr_3', reference: 'payout-3', amount: 3000, status: 'successful' }),
    seen(),
  );
  await applyRefund(db, refundFixture({ amount: 1000, status: 'successful' }), seen());
  await applyPaymentRefund(db, paymentRefundFixture({ status: 'successful' }), seen());
}

/** What the simulator would say about the books above (sandbox, no funding). */
export function cleanTruth(): GroundTruth {
  const item = (kind: string, id: string, status: string) => ({
    kind,
    id,
    mode: 'sandbox',
    status,
  });
  const move = (
    id: string,
    accountType: string,
    amount: number,
    kind: string,
    resourceId: string,
  ) => ({ id, mode: 'sandbox', accountType, currency: 'XOF', amount, kind, resourceId });
  return {
    now: at(10),
    items: [
      item('payment_intent', 'pi_1', 'successful'),
      item('payment_intent', 'pi_3', 'processing'),
      item('transfer', 'tr_1', 'successful'),
      item('transfer', 'tr_2', 'failed'),
      item('transfer', 'tr_3', 'successful'),
      item('refund', '41', 'successful'),
      item('payment_refund', '41', 'successful'),
      item('payment_link', 'pl_1', 'active'),
    ],
    movements: [
      move('mv_1', 'collection', 5000, 'payment', 'pi_1'),
      move('mv_2', 'transfer', -10000, 'transfer', 'tr_1'),
      move('mv_3', 'transfer', -100, 'transfer_fee', 'tr_1'),
      move('mv_4', 'transfer', -3000, 'transfer', 'tr_3'),
      move('mv_5', 'transfer', -100, 'transfer_fee', 'tr_3'),
      move('mv_6', 'transfer', 1000, 'transfer_refund', '41'),
      move('mv_7', 'collection', -2000, 'payment_refund', '41'),
    ],
    balances: {
      sandbox: [
        { accountType: 'collection', currency: 'XOF', amount: 3000 },
        { accountType: 'transfer', currency: 'XOF', amount: -12200 },
      ],
      live: [],
    },
  };
}

/**
 * The journal is append-only by triggers (migration 0003, kept by 0007's rebuild). A test that
 * must corrupt a stored journal drops them in its own database first; nothing else does.
 */
export async function dropAppendOnlyTriggers(db: Kysely<Database>): Promise<void> {
  if (dialectOfDb(db) === 'postgres') {
    for (const table of ['journals', 'journal_lines']) {
      await sql`drop trigger ${sql.id(`${table}_append_only`)} on ${sql.table(table)}`.execute(db);
    }
    return;
  }
  for (const table of ['journals', 'journal_lines']) {
    for (const op of ['update', 'delete']) {
      await sql`drop trigger ${sql.id(`${table}_no_${op}`)}`.execute(db);
    }
  }
}

/**
 * Recomputes the ledger's day totals (migration 0014) from the lines, as the ledger keeps them
 * when it books: for a test that writes lines behind the ledger's back to break one other
 * invariant, so the day-total check does not report the same tampering a second time.
 */
export async function keepDayTotalsInStep(db: Kysely<Database>): Promise<void> {
  await sql`delete from ledger_day_totals`.execute(db);
  await sql`insert into ledger_day_totals (day, account, currency, amount)
    select substr(j.effective_at, 1, 10), l.account, l.currency, sum(l.amount)
    from journal_lines l join journals j on j.id = l.journal_id
    group by substr(j.effective_at, 1, 10), l.account, l.currency`.execute(db);
}

/** The id of a resource's journal with that key. */
export async function journalId(
  db: Kysely<Database>,
  kind: string,
  id: string,
  key: string,
): Promise<number> {
  const row = await db
    .selectFrom('journals')
    .select('id')
    .where('resource_kind', '=', kind)
    .where('resource_id', '=', id)
    .where('settlement_key', '=', key)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
