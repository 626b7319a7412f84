/**
 * The hook in the sync pipeline: a transfer fetched from the simulator and applied by a real
 * sync batch pays its expectation in the same transaction, once; with all money out expected,
 * a transfer no expectation claims is an `unexpected` break.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncBatch, syncResource } from '../../src/reconcile/index.ts';
import { createSyncContext, type SyncContext } from '../processing/support/sync-context.ts';
import { createSweepFixture, type SweepFixture } from '../polling/support/sweep-fixture.ts';
import { testDialect } from '../support/test-database.ts';
import { expectation } from './match-fixtures.ts';
import { insertExpectation, matchingSnapshot } from './support/matching-rows.ts';

let context: SyncContext | undefined;
let sweeps: SweepFixture | undefined;
afterEach(async () => {
  await context?.cleanup();
  await sweeps?.cleanup();
  context = undefined;
  sweeps = undefined;
});

async function payOut(ctx: SyncContext, reference: string) {
  const transfer = ctx.sim.control.createTransfer({
    amount: 2500,
    reference,
    destination: { number: '221770000077' },
  });
  const refs = [{ kind: 'transfer' as const, id: transfer.id, reference, via: 'webhook' as const }];
  await syncBatch(ctx.deps, { refs }, { attempt: 1 });
  ctx.sim.control.advance(1000);
  ctx.sim.control.settle(transfer.id, 'successful');
  await syncBatch(ctx.deps, { refs }, { attempt: 1 });
  return transfer;
}

describe(`expectations matched by the sync pipeline on ${testDialect()}`, () => {
  it('a settled transfer pays its expectation in the sync transaction', async () => {
    context = await createSyncContext();
    const { id: _id, ...fields } = expectation({
      reference: 'payout-77',
      currency: 'XOF',
      amount_min: 2500,
      amount_max: 2500,
      window_from: '2000-01-01T00:00:00.000Z',
      window_to: '2100-01-01T00:00:00.000Z',
    });
    const id = await insertExpectation(context.database.db, fields);
    const transfer = await payOut(context, 'payout-77');
    const seen = await matchingSnapshot(context.database.db);
    expect(seen.matches).toEqual([
      {
        expectation: id,
        item_kind: 'transfer',
        item_id: transfer.id,
        amount: 2500,
        rule: 'reference',
        late: 0,
      },
    ]);
    expect(seen.states).toEqual([
      { id, expectation_id: 'E-1', state: 'matched', matched_amount: 2500 },
    ]);
  });

  it('a transfer settled by a one-resource sync (a poll, a batch fallen back) pays it too', async () => {
    context = await createSyncContext();
    const { id: _id, ...fields } = expectation({
      reference: 'payout-80',
      currency: 'XOF',
      amount_min: 2500,
      amount_max: 2500,
      window_from: '2000-01-01T00:00:00.000Z',
      window_to: '2100-01-01T00:00:00.000Z',
    });
    const id = await insertExpectation(context.database.db, fields);
    const transfer = context.sim.control.createTransfer({
      amount: 2500,
      reference: 'payout-80',
      destination: { number: '221770000077' },
    });
    context.sim.control.advance(1000);
    context.sim.control.settle(transfer.id, 'successful');
    const synced = await syncResource(
      context.deps,
      { kind: 'transfer', id: transfer.id, via: 'poll' },
      { attempt: 1 },
    );
    expect(synced.outcome).toBe('synced');
    expect((await matchingSnapshot(context.database.db)).states).toEqual([
      { id, expectation_id: 'E-1', state: 'matched', matched_amount: 2500 },
    ]);
  });

  it('with all money out expected, an unclaimed transfer is unexpected', async () => {
    context = await createSyncContext({ overrides: { expectations: { allExpected: 'out' } } });
    const transfer = await payOut(context, 'payout-78');
    expect((await matchingSnapshot(context.database.db)).breaks).toEqual([
      expect.objectContaining({
        dedupe_key: `unexpected:-:transfer/${transfer.id}`,
        kind: 'unexpected',
      }),
    ]);
  });

  it('without expectations and with the default, nothing is written', async () => {
    context = await createSyncContext();
    await payOut(context, 'payout-79');
    expect(await matchingSnapshot(context.database.db)).toEqual({
      matches: [],
      states: [],
      breaks: [],
    });
  });

  it('a sweep that finds a settled intent matches it in the page transaction', async () => {
    sweeps = await createSweepFixture();
    const { id: _id, ...fields } = expectation({
      direction: 'in',
      reference: 'order-4711',
      amount_min: 4100,
      amount_max: 4100,
      window_from: '2000-01-01T00:00:00.000Z',
      window_to: '2100-01-01T00:00:00.000Z',
    });
    const id = await insertExpectation(sweeps.database.db, fields);
    const paid = sweeps.sim.control.createPaymentIntent({
      amount: 4100,
      purchaseReference: 'order-4711',
    });
    sweeps.sim.control.advance(1000);
    sweeps.sim.control.settle(paid.id, 'successful');
    sweeps.sim.control.advance(10);
    expect((await sweeps.sweep()).outcome).toBe('succeeded');
    const seen = await matchingSnapshot(sweeps.database.db);
    expect(seen.matches.map((m) => [m.expectation, m.item_id, m.rule])).toEqual([
      [id, paid.id, 'reference'],
    ]);
  });
});
