/**
 * Relay events through the real paths: a sync batch of webhook references fetched from the
 * simulator, a single sync, and a sweep of the simulator's lists. Each item's events come in
 * the order of its statuses, once each, with data that matches the published schema.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { statusHistoryFor } from '../../src/ledger/index.ts';
import { syncBatch, syncResource } from '../../src/reconcile/index.ts';
import { createSyncContext, type SyncContext } from '../processing/support/sync-context.ts';
import { createSweepFixture, type SweepFixture } from '../polling/support/sweep-fixture.ts';
import { testDialect } from '../support/test-database.ts';
import {
  addEndpointRow,
  deliveredTypes,
  messageProblems,
  storedEvents,
} from './support/relay-schema.ts';

let context: SyncContext | undefined;
let sweeps: SweepFixture | undefined;
afterEach(async () => {
  await context?.cleanup();
  await sweeps?.cleanup();
  context = undefined;
  sweeps = undefined;
});

describe(`relay events from real syncs on ${testDialect()}`, () => {
  it('a sync batch emits each item’s events in the order of its statuses, once', async () => {
    context = await createSyncContext();
    const ctx = context;
    const endpoint = await addEndpointRow(ctx.database.db, {
      endpointId: 'ep_all',
      eventTypes: null,
    });
    const intent = ctx.sim.control.createPaymentIntent({
      amount: 1500,
      purchaseReference: 'order-77',
    });
    const transfer = ctx.sim.control.createTransfer({
      amount: 2500,
      reference: 'payout-77',
      destination: { number: '221770000077' },
    });
    const refs = [
      { kind: 'payment_intent' as const, id: intent.id, via: 'webhook' as const },
      {
        kind: 'transfer' as const,
        id: transfer.id,
        reference: 'payout-77',
        via: 'webhook' as const,
      },
    ];
    await syncBatch(ctx.deps, { refs }, { attempt: 1 });
    // The simulator's clock is frozen: move it, so the settled states are newer versions.
    ctx.sim.control.advance(1000);
    ctx.sim.control.settle(intent.id, 'successful');
    ctx.sim.control.settle(transfer.id, 'successful');
    await syncBatch(ctx.deps, { refs }, { attempt: 1 });
    // The same states again (a duplicated webhook): nothing new.
    await syncBatch(ctx.deps, { refs }, { attempt: 1 });

    const events = await storedEvents(ctx.database.db);
    for (const event of events) expect(messageProblems(event.message)).toEqual([]);
    for (const [kind, id] of [
      ['payment_intent', String(intent.id)],
      ['transfer', String(transfer.id)],
    ] as const) {
      const mine = events.filter((e) => e.subject === `${kind}:${id}`);
      // One event per status the books took, in the order the books took them.
      const history = await statusHistoryFor(ctx.database.db, kind, id);
      expect(mine.map((e) => e.message.data.status)).toEqual(history.map((h) => h.toStatus));
      expect(mine.map((e) => e.message.data.previousStatus)).toEqual(
        history.map((h) => h.fromStatus),
      );
      expect(mine.at(-1)!.type).toBe(`${kind}.succeeded`);
      expect(mine.slice(0, -1).every((e) => e.type === `${kind}.status_changed`)).toBe(true);
      expect(new Set(mine.map((e) => e.message.id)).size).toBe(mine.length);
    }
    const succeeded = events.find((e) => e.type === 'payment_intent.succeeded')!;
    expect(succeeded.message.data).toMatchObject({
      id: intent.id,
      amount: 1500,
      currency: 'XOF',
      purchaseReference: 'order-77',
    });
    expect((succeeded.message.data.journalIds as number[]).length).toBe(1);
    expect((await deliveredTypes(ctx.database.db)).get(endpoint)).toEqual(
      events.map((e) => e.type),
    );

    // A single sync (a job of one resource) emits through its own transaction too.
    const late = ctx.sim.control.createPaymentIntent({ amount: 900 });
    ctx.sim.control.advance(1000);
    ctx.sim.control.settle(late.id, 'failed');
    await syncResource(
      ctx.deps,
      { kind: 'payment_intent', id: late.id, via: 'poll' },
      { attempt: 1 },
    );
    const after = await storedEvents(ctx.database.db);
    expect(
      after.filter((e) => e.subject === `payment_intent:${late.id}`).map((e) => e.type),
    ).toEqual(['payment_intent.failed']);
  });

  it('a sweep emits the events of what its pages changed', async () => {
    sweeps = await createSweepFixture();
    const fixture = sweeps;
    const paid = fixture.sim.control.createPaymentIntent({ amount: 4100 });
    fixture.sim.control.advance(1000);
    fixture.sim.control.settle(paid.id, 'successful');
    // Left open: the simulator settles an intent on its own 3 s after it is made.
    const open = fixture.sim.control.createPaymentIntent({ amount: 4200 });
    fixture.sim.control.advance(10);
    const first = await fixture.sweep();
    expect(first.outcome).toBe('succeeded');
    const events = await storedEvents(fixture.database.db);
    for (const event of events) expect(messageProblems(event.message)).toEqual([]);
    const bySubject = (id: string) =>
      events.filter((e) => e.subject === `payment_intent:${id}`).map((e) => e.type);
    expect(bySubject(paid.id)).toEqual(['payment_intent.succeeded']);
    expect(bySubject(open.id)).toEqual(['payment_intent.status_changed']);
    expect(
      events.find((e) => e.subject === `payment_intent:${paid.id}`)!.message.data,
    ).toMatchObject({ previousStatus: null, status: 'successful' });
    // Sweeping the same window again changes nothing and emits nothing.
    await fixture.sweep();
    expect(await storedEvents(fixture.database.db)).toHaveLength(events.length);
  });
});
