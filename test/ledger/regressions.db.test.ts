import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  applyPaymentIntent,
  applyTransfer,
  openDiscrepancies,
  settlementJournalCount,
  unbalancedJournals,
} from '../../src/ledger/index.ts';
import { findResource } from '../../src/resource-view/index.ts';
import type { Transfer } from '../../src/upstream/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import {
  at,
  kindFixtures,
  ledgerSnapshot,
  netForResource,
  paymentIntentFixture,
  seen,
  transferFixture,
} from './support/ledger-fixtures.ts';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

describe(`regressions on ${testDialect()}`, () => {
  test.each(kindFixtures)(
    '$kind: successful → failed records a discrepancy and a reversal; the item then nets to zero',
    async (fixture) => {
      const db = database.db;
      const settled = await fixture.apply(db, 'successful', at(2));
      const failed = await fixture.apply(db, 'failed', at(3));

      expect(failed).toMatchObject({
        changed: true,
        previousStatus: 'successful',
        status: 'failed',
      });
      expect(failed.journalsPosted).toHaveLength(1);
      const reversal = failed.journalsPosted[0]!;
      expect(reversal).toMatchObject({
        settlementKey: 'reversal-1',
        entryType: 'reversal',
        reversesJournalId: settled.journalsPosted[0]!.id,
      });
      expect(reversal.lines).toEqual(
        settled.journalsPosted[0]!.lines.map((l) => ({ ...l, amount: -l.amount })),
      );
      expect(failed.discrepancies.map((d) => d.kind)).toEqual(['settlement_reversed']);
      expect(await netForResource(db, fixture.kind, fixture.id)).toEqual({});
      expect(await unbalancedJournals(db)).toEqual([]);

      // Replaying either state books nothing more.
      const before = await ledgerSnapshot(db);
      await fixture.apply(db, 'successful', at(2));
      await fixture.apply(db, 'failed', at(3));
      expect(await ledgerSnapshot(db)).toEqual(before);
    },
  );

  test.each(kindFixtures)(
    '$kind: successful → failed → successful books settlement-2, and the item is booked once',
    async (fixture) => {
      const db = database.db;
      await fixture.apply(db, 'successful', at(2));
      const afterFirst = await netForResource(db, fixture.kind, fixture.id);
      await fixture.apply(db, 'failed', at(3));
      const again = await fixture.apply(db, 'successful', at(4));

      expect(again.journalsPosted.map((j) => j.settlementKey)).toEqual(['settlement-2']);
      expect(await settlementJournalCount(db, fixture.kind, fixture.id)).toBe(2);
      expect(await netForResource(db, fixture.kind, fixture.id)).toEqual(afterFirst);
      const view = await findResource(db, fixture.id, { kind: fixture.kind });
      expect(view?.journals.map((j) => j.settlementKey)).toEqual([
        'settlement-1',
        'reversal-1',
        'settlement-2',
      ]);
    },
  );

  test.each(kindFixtures)(
    '$kind: a terminal status going back to an open one is held and flagged',
    async (fixture) => {
      const db = database.db;
      await fixture.apply(db, 'successful', at(2));
      const back = await fixture.apply(db, fixture.openStatus, at(3));

      expect(back).toMatchObject({
        changed: true,
        status: 'successful',
        upstreamStatus: fixture.openStatus,
        journalsPosted: [],
      });
      expect(back.discrepancies).toHaveLength(1);
      expect(back.discrepancies[0]).toMatchObject({
        kind: 'status_regression',
        resourceKind: fixture.kind,
        resourceId: fixture.id,
        detail: { held: 'successful', upstream: fixture.openStatus, updatedAt: at(3) },
      });
      const view = await findResource(db, fixture.id, { kind: fixture.kind });
      expect(view?.record).toMatchObject({
        status: 'successful',
        upstreamStatus: fixture.openStatus,
        updatedAt: at(3),
      });
      expect(view?.history.map((h) => h.toStatus)).toEqual(['successful']);
      expect(await settlementJournalCount(db, fixture.kind, fixture.id)).toBe(1);
    },
  );

  test('a failed payment intent paid by a later attempt is a normal settlement', async () => {
    const db = database.db;
    const steps = [
      ['processing', at(1)],
      ['failed', at(2)],
      ['processing', at(3)],
      ['successful', at(4)],
    ] as const;
    const outcomes = [];
    for (const [status, updatedAt] of steps) {
      outcomes.push(
        await applyPaymentIntent(db, paymentIntentFixture({ status, updatedAt }), seen()),
      );
    }
    expect(outcomes.map((o) => o.status)).toEqual([
      'processing',
      'failed',
      'processing',
      'successful',
    ]);
    expect(outcomes.flatMap((o) => o.discrepancies)).toEqual([]);
    expect(outcomes[3]!.journalsPosted.map((j) => j.settlementKey)).toEqual(['settlement-1']);
    const view = await findResource(db, 'pi_1');
    expect(view?.history.map((h) => [h.fromStatus, h.toStatus])).toEqual([
      [null, 'processing'],
      ['processing', 'failed'],
      ['failed', 'processing'],
      ['processing', 'successful'],
    ]);
    expect(await openDiscrepancies(db)).toEqual([]);
  });

  test('failed → successful directly is also normal for a payment intent', async () => {
    const db = database.db;
    await applyPaymentIntent(
      db,
      paymentIntentFixture({ status: 'failed', updatedAt: at(1) }),
      seen(),
    );
    const paid = await applyPaymentIntent(
      db,
      paymentIntentFixture({ status: 'successful', updatedAt: at(2) }),
      seen(),
    );
    expect(paid.discrepancies).toEqual([]);
    expect(paid.journalsPosted).toHaveLength(1);
  });

  test('a failed transfer that turns successful is booked and flagged', async () => {
    const db = database.db;
    await applyTransfer(db, transferFixture({ status: 'failed', updatedAt: at(1) }), seen());
    const paid = await applyTransfer(
      db,
      transferFixture({ status: 'successful', updatedAt: at(2) }),
      seen(),
    );
    expect(paid.journalsPosted.map((j) => j.settlementKey)).toEqual(['settlement-1']);
    expect(paid.discrepancies.map((d) => d.kind)).toEqual(['terminal_status_changed']);
  });

  test.each<[string, Partial<Transfer>]>([
    ['amount', { amount: 12000 }],
    ['currency', { currency: 'EUR' }],
    ['fees', { fees: [{ id: 'fee_1', rate: 1, amount: 150, currency: 'XOF' }] }],
    ['account (isIrt)', { isIrt: true }],
  ])(
    'a settled transfer whose %s changes upstream is flagged, not re-booked',
    async (_what, change) => {
      const db = database.db;
      const settled = await applyTransfer(
        db,
        transferFixture({ status: 'successful', updatedAt: at(2) }),
        seen(),
      );
      const before = await netForResource(db, 'transfer', 'tr_1');
      const changed = await applyTransfer(
        db,
        transferFixture({ status: 'successful', updatedAt: at(3), ...change }),
        seen(),
      );

      expect(changed.journalsPosted).toEqual([]);
      expect(changed.discrepancies).toHaveLength(1);
      expect(changed.discrepancies[0]).toMatchObject({
        kind: 'amount_changed',
        detail: { settlementKey: 'settlement-1', booked: settled.journalsPosted[0]!.lines },
      });
      expect(await netForResource(db, 'transfer', 'tr_1')).toEqual(before);
      // The mirror still says what the service says.
      const view = await findResource(db, 'tr_1');
      expect(view?.record.updatedAt).toBe(at(3));
    },
  );

  test('a reversal after an amount change reverses what was booked, not the new amount', async () => {
    const db = database.db;
    await applyPaymentIntent(
      db,
      paymentIntentFixture({ status: 'successful', amount: 5000, updatedAt: at(2) }),
      seen(),
    );
    await applyPaymentIntent(
      db,
      paymentIntentFixture({ status: 'successful', amount: 7000, updatedAt: at(3) }),
      seen(),
    );
    await applyPaymentIntent(
      db,
      paymentIntentFixture({ status: 'failed', amount: 7000, updatedAt: at(4) }),
      seen(),
    );
    expect(await netForResource(db, 'payment_intent', 'pi_1')).toEqual({});
    const resettled = await applyPaymentIntent(
      db,
      paymentIntentFixture({ status: 'successful', amount: 7000, updatedAt: at(5) }),
      seen(),
    );
    expect(resettled.journalsPosted[0]?.lines).toEqual([
      { account: 'service:collection', currency: 'XOF', amount: 7000 },
      { account: 'income:payments', currency: 'XOF', amount: -7000 },
    ]);
  });
});
