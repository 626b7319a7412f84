import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Executor } from '../../src/db/index.ts';
import {
  applyBatch,
  applyPaymentIntent,
  applyPaymentRefund,
  applyRefund,
  applyTransfer,
  insertClosedPeriod,
  type ApplyOutcome,
  type BatchEntry,
  type Observation,
} from '../../src/ledger/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import {
  at,
  paymentIntentFixture,
  paymentRefundFixture,
  refundFixture,
  transferFixture,
} from './support/ledger-fixtures.ts';

// Two databases for the whole property: each run books items of its own (ids carry the run
// number), and the comparison reads only that run's rows.
let single: TestDatabase;
let batched: TestDatabase;
beforeAll(async () => {
  [single, batched] = await Promise.all([freshDatabase(), freshDatabase()]);
  // Two closed "months" in a row over versions 1 and 2: their settlements and reversals are
  // late changes, booked at the start of the first open period (version 3).
  for (const db of [single.db, batched.db]) {
    for (const [period, from, to] of [
      ['2026-01', at(0), at(2)],
      ['2026-02', at(2), at(3)],
    ] as const) {
      await insertClosedPeriod(db, {
        environment: 'sandbox',
        period,
        window_from: from,
        window_to: to,
        closed_at: at(0),
        closed_by: 'test',
        forced: 0,
        reason: null,
        exports: '{}',
      });
    }
  }
});
afterAll(async () => {
  await Promise.all([single?.cleanup(), batched?.cleanup()]);
});

const STATUSES = {
  payment_intent: ['processing', 'action_required', 'successful', 'failed', 'canceled'],
  transfer: ['created', 'pending', 'successful', 'failed'],
  refund: ['created', 'pending', 'successful', 'failed'],
  payment_refund: ['created', 'pending', 'successful', 'failed'],
} as const;

/** Eight items per run: two of each kind, one transfer IRT, refunds of the run's transfers. */
const ITEMS = [
  ['payment_intent', 0],
  ['payment_intent', 1],
  ['transfer', 0],
  ['transfer', 1],
  ['refund', 0],
  ['refund', 1],
  ['payment_refund', 0],
  ['payment_refund', 1],
] as const;

interface Event {
  readonly item: number;
  readonly status: number;
  /** The service's version, seconds into the day: repeats and older ones come up often. */
  readonly version: number;
  /** 1: the service reports another amount (an amount change after settling). */
  readonly amount: number;
  readonly observedAt: number;
  readonly via: Observation['via'];
  readonly inboxId: number | undefined;
}

const event = fc.record({
  item: fc.integer({ min: 0, max: ITEMS.length - 1 }),
  status: fc.nat(),
  version: fc.integer({ min: 1, max: 6 }),
  amount: fc.integer({ min: 0, max: 1 }),
  observedAt: fc.integer({ min: 0, max: 3 }),
  via: fc.constantFrom<Observation['via']>('webhook', 'poll', 'sweep', 'replay'),
  inboxId: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
});

function entryOf(run: number, e: Event): BatchEntry {
  const [kind, n] = ITEMS[e.item]!;
  const statuses = STATUSES[kind];
  const status = statuses[e.status % statuses.length]! as never;
  const updatedAt = at(e.version);
  const refundId = run * 10 + n;
  const observation: Observation = {
    via: e.via,
    observedAt: `2026-03-01T11:00:0${e.observedAt}.000Z`,
    ...(e.inboxId === undefined ? {} : { inboxId: e.inboxId }),
  };
  const amount = (base: number) => base + e.amount * 7;
  switch (kind) {
    case 'payment_intent':
      return {
        fetched: {
          kind,
          state: paymentIntentFixture({
            id: `pi_r${run}_${n}`,
            purchaseReference: `order-${run}-${n}`,
            status,
            updatedAt,
            amount: amount(5000),
          }),
        },
        observation,
      };
    case 'transfer':
      return {
        fetched: {
          kind,
          state: transferFixture({
            id: `tr_r${run}_${n}`,
            reference: `payout-${run}-${n}`,
            status,
            updatedAt,
            amount: amount(10000),
            isIrt: n === 1,
          }),
        },
        observation,
      };
    case 'refund':
      return {
        fetched: {
          kind,
          state: refundFixture({
            id: refundId,
            transactionId: `tr_r${run}_${n}`,
            status,
            updatedAt,
            amount: amount(3000),
          }),
        },
        observation,
      };
    case 'payment_refund':
      return {
        fetched: {
          kind,
          state: paymentRefundFixture({
            id: refundId,
            paymentIntentId: `pi_r${run}_${n}`,
            status,
            updatedAt,
            amount: amount(2000),
          }),
        },
        observation,
      };
  }
}

/** The single-item functions, each entry in its own transaction, as a sync job did before. */
function applyOne(db: Executor, entry: BatchEntry): Promise<ApplyOutcome> {
  const { fetched, observation } = entry;
  switch (fetched.kind) {
    case 'payment_intent':
      return applyPaymentIntent(db, fetched.state, observation);
    case 'transfer':
      return applyTransfer(db, fetched.state, observation);
    case 'refund':
      return applyRefund(db, fetched.state, observation);
    case 'payment_refund':
      return applyPaymentRefund(db, fetched.state, observation);
  }
}

/** Outcomes without database ids (sequences may differ between the two databases). */
function comparable(outcome: ApplyOutcome) {
  return {
    ...outcome,
    journalsPosted: outcome.journalsPosted.map(({ id: _id, reversesJournalId, ...j }) => ({
      ...j,
      reverses: reversesJournalId !== null,
    })),
    discrepancies: outcome.discrepancies.map(({ id: _id, ...d }) => d),
  };
}

/** Every row the run's items have in the books, without ids, in insertion order. */
async function booksOf(db: Executor, run: number) {
  const ids = ITEMS.map(([kind, n]) =>
    kind === 'payment_intent'
      ? `pi_r${run}_${n}`
      : kind === 'transfer'
        ? `tr_r${run}_${n}`
        : String(run * 10 + n),
  );
  const journals = await db
    .selectFrom('journals')
    .selectAll()
    .where('resource_id', 'in', ids)
    .orderBy('id')
    .execute();
  const keyOf = new Map(
    journals.map((j) => [j.id, `${j.resource_kind}:${j.resource_id}:${j.settlement_key}`]),
  );
  const lines =
    journals.length === 0
      ? []
      : await db
          .selectFrom('journal_lines')
          .selectAll()
          .where(
            'journal_id',
            'in',
            journals.map((j) => j.id),
          )
          .orderBy('id')
          .execute();
  const rows = async (table: 'payment_intents' | 'transfers' | 'refunds') =>
    db.selectFrom(table).selectAll().where('id', 'in', ids).orderBy('id').execute();
  return {
    payment_intents: await rows('payment_intents'),
    transfers: await rows('transfers'),
    refunds: await db
      .selectFrom('refunds')
      .selectAll()
      .where('id', 'in', ids)
      .orderBy('kind')
      .orderBy('id')
      .execute(),
    status_history: (
      await db
        .selectFrom('status_history')
        .selectAll()
        .where('resource_id', 'in', ids)
        .orderBy('id')
        .execute()
    ).map(({ id: _id, ...row }) => row),
    journals: journals.map(({ id, reverses_journal_id, ...row }) => ({
      ...row,
      key: keyOf.get(id),
      reverses: reverses_journal_id === null ? null : keyOf.get(reverses_journal_id),
    })),
    journal_lines: lines.map(({ id: _id, journal_id, ...row }) => ({
      ...row,
      journal: keyOf.get(journal_id),
    })),
    discrepancies: (
      await db
        .selectFrom('discrepancies')
        .selectAll()
        .where('resource_id', 'in', ids)
        .orderBy('id')
        .execute()
    ).map(({ id: _id, ...row }) => row),
    late_changes: (
      await db
        .selectFrom('late_changes')
        .selectAll()
        .where('journal_id', 'in', journals.length === 0 ? [-1] : journals.map((j) => j.id))
        .orderBy('journal_id')
        .execute()
    ).map(({ journal_id, ...row }) => ({ ...row, journal: keyOf.get(journal_id) })),
    mirror_polls: await db
      .selectFrom('mirror_polls')
      .selectAll()
      .where('resource_id', 'in', ids)
      .orderBy('resource_kind')
      .orderBy('resource_id')
      .execute(),
  };
}

describe(`batch apply on ${testDialect()}`, () => {
  test('books the same as applying entry by entry, whatever the batch sizes', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { minLength: 8, maxLength: 40, size: 'max' }),
        fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 10 }),
        async (events, sizes) => {
          run += 1;
          const entries = events.map((e) => entryOf(run, e));

          const one: ApplyOutcome[] = [];
          for (const entry of entries) {
            one.push(await single.db.transaction().execute((trx) => applyOne(trx, entry)));
          }

          const many: ApplyOutcome[] = [];
          for (let start = 0, i = 0; start < entries.length; i += 1) {
            const size = sizes[i % sizes.length]!;
            const batch = entries.slice(start, start + size);
            many.push(...(await batched.db.transaction().execute((trx) => applyBatch(trx, batch))));
            start += size;
          }

          expect(many.map(comparable)).toEqual(one.map(comparable));
          expect(await booksOf(batched.db, run)).toEqual(await booksOf(single.db, run));
        },
      ),
      { numRuns: testDialect() === 'postgres' ? 25 : 60 },
    );
  }, 60_000);

  test('a run that books something shows up in the comparison (the property can fail)', async () => {
    // Guards the comparison itself: a settled item differs from an unsettled one.
    const entry = entryOf(900, {
      item: 0,
      status: 2,
      version: 1,
      amount: 0,
      observedAt: 0,
      via: 'webhook',
      inboxId: undefined,
    });
    await batched.db.transaction().execute((trx) => applyBatch(trx, [entry]));
    const books = await booksOf(batched.db, 900);
    expect(books.journals).toHaveLength(1);
    expect(books.journal_lines.map((l) => l.amount)).toEqual([5000, -5000]);
    expect(books.late_changes).toMatchObject([
      { closed_period: '2026-01', booked_effective_at: at(3) },
    ]);
    expect(await booksOf(single.db, 900)).not.toEqual(books);
  });
});
