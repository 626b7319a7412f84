import type { Executor } from '../../../src/db/index.ts';
import {
  applyPaymentIntent,
  applyPaymentRefund,
  applyRefund,
  applyTransfer,
  type ApplyOutcome,
  type LedgerResourceKind,
  type Observation,
} from '../../../src/ledger/index.ts';
import { paymentRefundState, type PaymentRefund } from '../../../src/upstream/index.ts';
import {
  at,
  paymentIntentFixture,
  refundFixture,
  transferFixture,
} from '../../support/resource-fixtures.ts';

export { at, paymentIntentFixture, refundFixture, transferFixture };

export function seen(overrides: Partial<Observation> = {}): Observation {
  return { via: 'webhook', observedAt: '2026-03-01T11:00:00.000Z', ...overrides };
}

export function paymentRefundFixture(overrides: Partial<PaymentRefund> = {}): PaymentRefund {
  return paymentRefundState.parse({
    id: 41,
    paymentIntentId: 'pi_1',
    status: 'pending',
    amount: 2000,
    currency: 'XOF',
    reason: 'returned goods',
    mode: 'sandbox',
    createdAt: at(0),
    updatedAt: at(1),
    ...overrides,
  });
}

/** One resource kind, driven through its `apply…` with a status and a version. */
export interface KindFixture {
  readonly kind: LedgerResourceKind;
  readonly id: string;
  /** A status that is not terminal, one the service moves through before settling. */
  readonly openStatus: string;
  apply(
    db: Executor,
    status: string,
    updatedAt: string,
    observation?: Observation,
  ): Promise<ApplyOutcome>;
}

export const kindFixtures: readonly KindFixture[] = [
  {
    kind: 'payment_intent',
    id: 'pi_1',
    openStatus: 'processing',
    apply: (db, status, updatedAt, observation = seen()) =>
      applyPaymentIntent(
        db,
        paymentIntentFixture({ status: status as never, updatedAt }),
        observation,
      ),
  },
  {
    kind: 'transfer',
    id: 'tr_1',
    openStatus: 'pending',
    apply: (db, status, updatedAt, observation = seen()) =>
      applyTransfer(db, transferFixture({ status: status as never, updatedAt }), observation),
  },
  {
    kind: 'refund',
    id: '41',
    openStatus: 'pending',
    apply: (db, status, updatedAt, observation = seen()) =>
      applyRefund(db, refundFixture({ status: status as never, updatedAt }), observation),
  },
  {
    kind: 'payment_refund',
    id: '41',
    openStatus: 'pending',
    apply: (db, status, updatedAt, observation = seen()) =>
      applyPaymentRefund(
        db,
        paymentRefundFixture({ status: status as never, updatedAt }),
        observation,
      ),
  },
];

/** Sums per currency of each journal's lines; every value must be 0. */
export function sumsPerCurrency(lines: readonly { currency: string; amount: number }[]) {
  const sums: Record<string, number> = {};
  for (const line of lines) sums[line.currency] = (sums[line.currency] ?? 0) + line.amount;
  return sums;
}

/** Every row of every ledger table, to show that something changed nothing. */
export async function ledgerSnapshot(db: Executor) {
  return {
    payment_intents: await db.selectFrom('payment_intents').selectAll().orderBy('id').execute(),
    transfers: await db.selectFrom('transfers').selectAll().orderBy('id').execute(),
    refunds: await db.selectFrom('refunds').selectAll().orderBy('kind').orderBy('id').execute(),
    status_history: await db.selectFrom('status_history').selectAll().orderBy('id').execute(),
    journals: await db.selectFrom('journals').selectAll().orderBy('id').execute(),
    journal_lines: await db.selectFrom('journal_lines').selectAll().orderBy('id').execute(),
    discrepancies: await db.selectFrom('discrepancies').selectAll().orderBy('id').execute(),
  };
}

/** Per account and currency, the net of one resource's lines (what the books hold for it). */
export async function netForResource(db: Executor, kind: LedgerResourceKind, id: string) {
  const rows = await db
    .selectFrom('journal_lines as l')
    .innerJoin('journals as j', 'j.id', 'l.journal_id')
    .select(['l.account', 'l.currency', 'l.amount'])
    .where('j.resource_kind', '=', kind)
    .where('j.resource_id', '=', id)
    .execute();
  const net: Record<string, number> = {};
  for (const row of rows) {
    const key = `${row.account} ${row.currency}`;
    net[key] = (net[key] ?? 0) + row.amount;
    if (net[key] === 0) delete net[key];
  }
  return net;
}
