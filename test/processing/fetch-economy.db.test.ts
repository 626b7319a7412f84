import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent, insertInboxEvent } from '../../src/inbox/index.ts';
import { recordInboxResource } from '../../src/inbox/index.ts';
import { syncResource } from '../../src/reconcile/index.ts';
import { createSyncContext, type SyncContext } from './support/sync-context.ts';
import { until } from '../support/until.ts';

let context: SyncContext | undefined;
afterEach(async () => {
  await context?.cleanup();
  context = undefined;
});

/** An event the receiver stored but the ingest job has not classified yet. */
async function unclassifiedEvent(ctx: SyncContext, n: number): Promise<number> {
  const { inboxId } = await insertInboxEvent(ctx.database.db, {
    receivedAt: new Date(),
    dedupeKey: `raw-${n}-${Math.random()}`,
    eventId: undefined,
    eventType: undefined,
    rawBody: Buffer.from('{}'),
    headers: {},
  });
  return inboxId;
}

function requests(ctx: SyncContext): number {
  return ctx.deps.upstream.stats().requests;
}

describe('fetch economy: a sync skips a fetch an earlier one covered', () => {
  it('closes an event received before the last fetch began without fetching again', async () => {
    context = await createSyncContext();
    const ctx = context;
    const intent = ctx.sim.control.createPaymentIntent({ amount: 1500 });
    ctx.sim.control.settle(intent.id);
    // Three webhooks land together; the first sync starts before the ingest job classified
    // the other two (the burst the benchmark measures).
    const first = await ctx.inboxEvent({ kind: 'payment_intent', id: intent.id });
    const second = await unclassifiedEvent(ctx, 2);
    const third = await unclassifiedEvent(ctx, 3);
    const synced = await syncResource(
      ctx.deps,
      { kind: 'payment_intent', id: intent.id, inboxId: first, via: 'webhook' },
      { attempt: 1 },
    );
    expect(synced).toMatchObject({ outcome: 'synced', closedRows: 1 });
    const afterFirst = requests(ctx);

    for (const inboxId of [second, third]) {
      await recordInboxResource(ctx.database.db, inboxId, {
        kind: 'payment_intent',
        id: intent.id,
      });
    }
    const skipped = await syncResource(
      ctx.deps,
      { kind: 'payment_intent', id: intent.id, inboxId: second, via: 'webhook' },
      { attempt: 1 },
    );
    expect(skipped).toEqual({ outcome: 'skipped', closedRows: 2 });
    expect(requests(ctx)).toBe(afterFirst);
    for (const inboxId of [first, second, third]) {
      expect(await findInboxEvent(ctx.database.db, inboxId)).toMatchObject({
        status: 'processed',
      });
    }
  });

  it('never closes an event that arrived after the fetch started: its sync fetches', async () => {
    context = await createSyncContext({
      sim: { faults: { latencyMs: 600, operations: ['getPaymentIntent'] } },
    });
    const ctx = context;
    const intent = ctx.sim.control.createPaymentIntent({ amount: 1500 });
    const early = await ctx.inboxEvent({ kind: 'payment_intent', id: intent.id });
    const requestsBefore = requests(ctx);
    const syncing = syncResource(
      ctx.deps,
      { kind: 'payment_intent', id: intent.id, inboxId: early, via: 'webhook' },
      { attempt: 1 },
    );
    // Once the fetch is under way (the service answers it 600 ms later).
    await until(() => requests(ctx) > requestsBefore, { message: 'the fetch begun' });
    ctx.sim.control.settle(intent.id); // the change this late event announces
    const late = await ctx.inboxEvent({ kind: 'payment_intent', id: intent.id });
    expect(await syncing).toMatchObject({ outcome: 'synced', closedRows: 1 });
    const before = requests(ctx);

    const again = await syncResource(
      ctx.deps,
      { kind: 'payment_intent', id: intent.id, inboxId: late, via: 'webhook' },
      { attempt: 1 },
    );
    expect(again).toMatchObject({ outcome: 'synced', closedRows: 1 });
    expect(requests(ctx)).toBe(before + 1);
    expect(await findInboxEvent(ctx.database.db, late)).toMatchObject({ status: 'processed' });
    const mirror = await ctx.database.db
      .selectFrom('payment_intents')
      .select('status')
      .where('id', '=', intent.id)
      .executeTakeFirstOrThrow();
    expect(mirror.status).toBe('successful');
  });

  it('fetches when a poll is due even though every event is covered, and on a replay', async () => {
    context = await createSyncContext();
    const ctx = context;
    const intent = ctx.sim.control.createPaymentIntent({ amount: 1500 });
    const first = await ctx.inboxEvent({ kind: 'payment_intent', id: intent.id });
    await syncResource(
      ctx.deps,
      { kind: 'payment_intent', id: intent.id, inboxId: first, via: 'webhook' },
      { attempt: 1 },
    );
    // Still non-terminal: a poll is due a minute after the change.
    const later = new Date(Date.now() + 2 * 60_000);
    const withDuePoll = { ...ctx.deps, now: () => later };
    const before = requests(ctx);
    const polled = await syncResource(
      withDuePoll,
      { kind: 'payment_intent', id: intent.id, via: 'poll' },
      { attempt: 1 },
    );
    expect(polled.outcome).toBe('synced');
    expect(requests(ctx)).toBe(before + 1);

    const replayed = await syncResource(
      ctx.deps,
      { kind: 'payment_intent', id: intent.id, inboxId: first, via: 'replay' },
      { attempt: 1 },
    );
    expect(replayed.outcome).toBe('synced');
    expect(requests(ctx)).toBe(before + 2);
  });
});
