import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../../src/db/index.ts';
import {
  applyPaymentIntent,
  applyPaymentRefund,
  applyRefund,
  applyTransfer,
  paymentRefundState,
  type ApplyOutcome,
  type LedgerResourceKind,
  type Observation,
  type PaymentRefund,
} from '../../../src/ledger/index.ts';
import {
  paymentIntent as paymentIntentSchema,
  refund as refundSchema,
  transfer as transferSchema,
  type PaymentIntent,
  type Refund,
  type Transfer,
} from '../../../src/upstream/index.ts';

type Executor = Kysely<Database> | Transaction<Database>;

/** The service's updatedAt `n` seconds into the test day, UTC with milliseconds. */
export function at(seconds: number): string {
  return new Date(Date.UTC(2026, 2, 1, 10, 0, seconds)).toISOString();
}

export function seen(overrides: Partial<Observation> = {}): Observation {
  return { via: 'webhook', observedAt: '2026-03-01T11:00:00.000Z', ...overrides };
}

// Every fixture goes through the contract schema, so a test cannot use a shape the job
// could never hand over.
export function paymentIntentFixture(overrides: Partial<PaymentIntent> = {}): PaymentIntent {
  return paymentIntentSchema.parse({
    id: 'pi_1',
    merchantId: 'mch_1',
    createdAt: at(0),
    updatedAt: at(1),
    token: 'eyJ.payload.sig',
    purchaseReference: 'order-1',
    customerReference: 'cust-1',
    status: 'processing',
    amount: 5000,
    currency: 'XOF',
    payments: [],
    mode: 'sandbox',
    ...overrides,
  });
}

export function transferFixture(overrides: Partial<Transfer> = {}): Transfer {
  return transferSchema.parse({
    id: 'tr_1',
    merchantId: 'mch_1',
    createdAt: at(0),
    updatedAt: at(1),
    reference: 'payout-1',
    description: 'payout',
    status: 'pending',
    amount: 10000,
    currency: 'XOF',
    mode: 'sandbox',
    destination: { type: 'mobile_money', country: 'SN', number: '221770000000', provider: 'wave' },
    fees: [{ id: 'fee_1', rate: 1, amount: 100, currency: 'XOF', taxes: [], label: 'fee' }],
    isIrt: false,
    providerReference: 'prov-1',
    gatewayId: 'gw-1',
    isDelegated: false,
    aggregatedMerchantId: 'agg-1',
    ...overrides,
  });
}

export function refundFixture(overrides: Partial<Refund> = {}): Refund {
  return refundSchema.parse({
    id: 41,
    status: 'pending',
    transactionId: 'tr_1',
    amount: 10000,
    currency: 'XOF',
    reason: 'wrong recipient',
    paymentMethod: 'mobile_money',
    fallbackAllowed: false,
    fallbackUsed: false,
    metadata: {},
    supportTicketId: 'TCK-41',
    createdAt: at(0),
    updatedAt: at(1),
    ...overrides,
  });
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
