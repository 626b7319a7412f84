import type { Kysely } from 'kysely';
import type { Database, Executor } from '../../../src/db/index.ts';
import type { MatchableExpectation, SettledItem } from '../../../src/expectations/index.ts';
import {
  applyPaymentIntent,
  applyPaymentRefund,
  applyRefund,
  applyTransfer,
} from '../../../src/ledger/index.ts';
import {
  paymentIntentFixture,
  paymentRefundFixture,
  refundFixture,
  seen,
  transferFixture,
} from '../../ledger/support/ledger-fixtures.ts';

export const ENVIRONMENT = 'sandbox';
const CREATED = '2026-02-01T00:00:00.000Z';

/** An expectation row as the loader would write it, with the engine's fields given. */
export async function insertExpectation(
  db: Kysely<Database>,
  e: Omit<MatchableExpectation, 'id'>,
): Promise<number> {
  const row = await db
    .insertInto('expectations')
    .values({
      environment: ENVIRONMENT,
      expectation_id: e.expectation_id,
      direction: e.direction,
      item_kinds: e.item_kinds === null ? null : JSON.stringify(e.item_kinds),
      currency: e.currency,
      amount_min: e.amount_min,
      amount_max: e.amount_max,
      window_from: e.window_from,
      window_to: e.window_to,
      reference: e.reference,
      item_id: e.item_id,
      counterparty: e.counterparty,
      purchase_reference: e.purchase_reference,
      description_pattern: e.description_pattern,
      allow_split: e.allow_split ? 1 : 0,
      match_group: e.match_group,
      metadata: '{}',
      state: e.state,
      matched_amount: 0,
      version: 1,
      content_hash: `hash-${e.expectation_id}`,
      created_at: CREATED,
      updated_at: CREATED,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** A real mirror row for a settled item, through the ledger's own apply functions. */
export async function settle(db: Executor, item: SettledItem): Promise<void> {
  const common = {
    amount: item.amount,
    currency: item.currency,
    updatedAt: item.settledAt,
    status: 'successful' as const,
  };
  switch (item.kind) {
    case 'transfer':
      await applyTransfer(
        db,
        transferFixture({
          ...common,
          id: item.id,
          createdAt: CREATED,
          reference: item.reference ?? `no-ref-${item.id}`,
          description: item.description ?? 'payout',
          destination: {
            type: 'mobile_money',
            country: 'SN',
            number: item.counterparty ?? '221770000000',
            provider: 'wave',
          },
        }),
        seen(),
      );
      return;
    case 'payment_intent':
      await applyPaymentIntent(
        db,
        paymentIntentFixture({
          ...common,
          id: item.id,
          createdAt: CREATED,
          purchaseReference: item.reference ?? `no-ref-${item.id}`,
        }),
        seen(),
      );
      return;
    case 'refund':
      await applyRefund(
        db,
        refundFixture({
          ...common,
          id: Number(item.id),
          transactionId: item.originalId ?? 'tr_0',
          createdAt: CREATED,
        }),
        seen(),
      );
      return;
    case 'payment_refund':
      await applyPaymentRefund(
        db,
        paymentRefundFixture({
          ...common,
          id: Number(item.id),
          paymentIntentId: item.originalId ?? 'pi_0',
          createdAt: CREATED,
        }),
        seen(),
      );
  }
}

/** What a user of the books sees of matching: matches, states, open breaks. */
export async function matchingSnapshot(db: Kysely<Database>) {
  const matches = await db
    .selectFrom('expectation_matches')
    .select(['expectation', 'item_kind', 'item_id', 'amount', 'rule', 'late'])
    .orderBy('expectation')
    .orderBy('item_kind')
    .orderBy('item_id')
    .execute();
  const states = await db
    .selectFrom('expectations')
    .select(['id', 'expectation_id', 'state', 'matched_amount'])
    .orderBy('id')
    .execute();
  const breaks = await db
    .selectFrom('expectation_breaks')
    .select(['dedupe_key', 'kind', 'difference', 'explanation'])
    .where('state', '=', 'open')
    .orderBy('dedupe_key')
    .execute();
  const n = (v: unknown) => (v === null ? null : Number(v));
  return {
    matches: matches.map((m) => ({
      ...m,
      expectation: n(m.expectation),
      amount: n(m.amount),
      late: n(m.late),
    })),
    states: states.map((s) => ({ ...s, id: n(s.id), matched_amount: n(s.matched_amount) })),
    breaks: breaks.map((b) => ({ ...b, difference: n(b.difference) })),
  };
}
