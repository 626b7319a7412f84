import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openOutboxEntries } from '../../src/outbox/index.ts';
import { runJanitor } from '../../src/polling/index.ts';
import { syncResource } from '../../src/reconcile/index.ts';
import { createJanitorContext, type JanitorContext } from './support/janitor-context.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let ctx: JanitorContext;
beforeEach(async () => {
  ctx = await createJanitorContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

function janitor() {
  return runJanitor(
    {
      db: ctx.database.db,
      queues: ctx.queues,
      logger: pino({ level: 'silent' }),
      settings: ctx.settings,
    },
    ctx.now(),
  );
}

async function mirrorTransfer(id: string) {
  return ctx.database.db
    .selectFrom('transfers')
    .select(['status', 'last_synced_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function discrepanciesOf(id: string) {
  return ctx.database.db
    .selectFrom('discrepancies')
    .selectAll()
    .where('resource_id', '=', id)
    .execute();
}

describe('janitor: a transfer to the "stays pending 48 h" recipient', () => {
  it('is polled 1 m, 5 m, 15 m, 1 h, 6 h apart then daily, becomes stuck after 24 h, and is resolved when it settles', async () => {
    const transfer = ctx.sim.control.createTransfer({
      amount: 5000,
      destination: { number: '+221770009909' },
    });
    const reference = (transfer.resource as { reference: string }).reference;
    const createdAt = ctx.now().getTime();
    ctx.advance(3000); // created → pending on the simulator
    const inboxId = await ctx.inboxEvent({ kind: 'transfer', id: transfer.id, reference });
    const first = await syncResource(
      ctx.deps,
      { kind: 'transfer', id: transfer.id, reference, inboxId, via: 'webhook' },
      { attempt: 1 },
    );
    expect(first.outcome).toBe('synced');
    expect((await mirrorTransfer(transfer.id)).status).toBe('pending');
    const changedAt = ctx.now().getTime();

    // The documented schedule, as offsets from the last change: gaps of 1 m, 5 m, 15 m, 1 h,
    // 6 h, then 24 h.
    const offsets = [1, 6, 21, 81, 441, 441 + 24 * 60, 441 + 48 * 60].map((m) => m * MINUTE);
    const polledAt: string[] = [];
    const stuckRuns: number[] = [];
    for (const offset of offsets) {
      ctx.advanceTo(changedAt + offset - 1000);
      const early = await janitor();
      expect(early.polled, `nothing is due 1 s before ${offset / MINUTE} m`).toBe(0);
      expect(await ctx.runQueuedSyncs()).toEqual([]);

      ctx.advanceTo(changedAt + offset);
      const run = await janitor();
      expect(run.polled, `the poll due ${offset / MINUTE} m after the change`).toBe(1);
      stuckRuns.push(early.stuck + run.stuck);
      const syncs = await ctx.runQueuedSyncs();
      expect(syncs.map((s) => [s.data.via, s.result.outcome])).toEqual([['poll', 'synced']]);
      polledAt.push((await mirrorTransfer(transfer.id)).last_synced_at);
    }
    expect(polledAt).toEqual(offsets.map((offset) => new Date(changedAt + offset).toISOString()));

    // Stuck once, at the first run past 24 h from creation (the 31 h 21 m poll), not again.
    expect(changedAt + offsets[5]! - createdAt).toBeGreaterThan(24 * HOUR);
    expect(changedAt + offsets[4]! - createdAt).toBeLessThan(24 * HOUR);
    expect(stuckRuns).toEqual([0, 0, 0, 0, 0, 1, 0]);
    const [stuck, ...others] = await discrepanciesOf(transfer.id);
    expect(others).toEqual([]);
    expect(stuck).toMatchObject({ kind: 'stuck', resource_kind: 'transfer' });
    const detail = JSON.parse(stuck!.detail) as Record<string, unknown>;
    expect(detail).toMatchObject({
      status: 'pending',
      since: new Date(createdAt).toISOString(),
      age: '31h 21m',
    });
    // The alert is written to the outbox with the discrepancy, for the dispatcher to hand out.
    const alerts = (await openOutboxEntries(ctx.database.db, { kind: 'alert' })).filter(
      (entry) => entry.payload.discrepancyId === stuck!.id,
    );
    expect(alerts.map((entry) => entry.payload)).toEqual([
      expect.objectContaining({ discrepancyKind: 'stuck', status: 'pending', id: transfer.id }),
    ]);

    // The simulator settled it at 48 h; the 55 h 21 m poll saw it and resolved the break.
    expect(await mirrorTransfer(transfer.id)).toMatchObject({ status: 'successful' });
    const [resolved] = await discrepanciesOf(transfer.id);
    expect(resolved!.resolved_at).toBe(new Date(changedAt + offsets[6]!).toISOString());
    const journals = await ctx.database.db
      .selectFrom('journals')
      .select(['entry_type', 'via'])
      .where('resource_id', '=', transfer.id)
      .execute();
    expect(journals).toEqual([{ entry_type: 'settlement', via: 'poll' }]);

    // Settled: the janitor never polls it again.
    ctx.advance(30 * 24 * HOUR);
    expect((await janitor()).due).toBe(0);
  }, 60_000);
});

describe('janitor: no webhooks at all', () => {
  it('converges items first seen pending by polling them on its schedule', async () => {
    const transfers = [0, 1, 2].map(() =>
      ctx.sim.control.createTransfer({ amount: 2500, destination: { number: '+221770001234' } }),
    );
    const intents = [0, 1, 2].map((n) =>
      ctx.sim.control.createPaymentIntent({
        amount: 1000 + n,
        phoneNumber: '+221760001234',
      }),
    );
    // First sightings, e.g. by a sweep: no inbox row anywhere.
    for (const item of [...transfers, ...intents]) {
      const kind = item.kind === 'transfer' ? 'transfer' : 'payment_intent';
      const result = await syncResource(
        ctx.deps,
        { kind, id: item.id, via: 'poll' },
        { attempt: 1 },
      );
      expect(result.outcome).toBe('synced');
    }
    const firstSeen = ctx.now().getTime();
    ctx.advance(30_000); // everything settles upstream; nobody tells paysync

    ctx.advanceTo(firstSeen + MINUTE);
    expect((await janitor()).polled).toBe(6);
    await ctx.runQueuedSyncs();

    const truth = new Map(
      ctx.sim.control.groundTruth().items.map((item) => [item.id, item.status] as const),
    );
    const mirrored = [
      ...(await ctx.database.db.selectFrom('transfers').select(['id', 'status']).execute()),
      ...(await ctx.database.db.selectFrom('payment_intents').select(['id', 'status']).execute()),
    ];
    expect(mirrored).toHaveLength(6);
    for (const row of mirrored) expect(row.status).toBe(truth.get(row.id));
    expect(mirrored.every((row) => row.status === 'successful')).toBe(true);
    const inbox = await ctx.database.db.selectFrom('webhook_inbox').select('id').execute();
    expect(inbox).toEqual([]);
    const settlements = await ctx.database.db
      .selectFrom('journals')
      .select(['resource_id', 'via'])
      .execute();
    expect(settlements).toHaveLength(6);
    expect(settlements.every((journal) => journal.via === 'poll')).toBe(true);
    // Terminal now: nothing left for the janitor.
    ctx.advance(7 * 24 * HOUR);
    expect(await janitor()).toEqual({ due: 0, polled: 0, stuck: 0 });
  }, 60_000);
});

describe('janitor: SLAs and races', () => {
  it('gives a refund in pending_manual 7 days, not the 72 h of other refunds', async () => {
    const transfer = ctx.sim.control.createTransfer({
      amount: 5000,
      destination: { number: '+221770009905' },
    });
    ctx.advance(1000);
    ctx.sim.control.settle(transfer.id);
    ctx.advance(1000);
    const refund = await ctx.deps.upstream.createRefund({ transactionId: transfer.id });
    const createdAt = ctx.now().getTime();
    ctx.advance(10_000); // created → pending → pending_manual on the simulator
    const id = String(refund.id);
    const first = await syncResource(ctx.deps, { kind: 'refund', id, via: 'poll' }, { attempt: 1 });
    expect(first.outcome).toBe('synced');
    const status = await ctx.database.db
      .selectFrom('refunds')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(status.status).toBe('pending_manual');

    ctx.advanceTo(createdAt + 73 * HOUR);
    expect((await janitor()).stuck).toBe(0);
    await ctx.runQueuedSyncs();
    ctx.advanceTo(createdAt + 7 * 24 * HOUR + MINUTE);
    expect((await janitor()).stuck).toBe(1);
    const [stuck] = await discrepanciesOf(id);
    expect(stuck).toMatchObject({ kind: 'stuck', resource_kind: 'refund', resolved_at: null });
    expect(JSON.parse(stuck!.detail)).toMatchObject({ status: 'pending_manual', age: '168h 1m' });
  }, 60_000);

  it('two janitors running at once queue each due poll once', async () => {
    const ids = [0, 1, 2].map((n) => ctx.sim.control.createPaymentIntent({ amount: 700 + n }).id);
    for (const id of ids) {
      await syncResource(ctx.deps, { kind: 'payment_intent', id, via: 'poll' }, { attempt: 1 });
    }
    ctx.advance(MINUTE);
    const [a, b] = await Promise.all([janitor(), janitor()]);
    expect(a.polled + b.polled).toBe(3);
    // Each item moved one step along its schedule, not two.
    const steps = await ctx.database.db.selectFrom('mirror_polls').select('poll_step').execute();
    expect(steps.map((row) => Number(row.poll_step))).toEqual([1, 1, 1]);
    const syncs = await ctx.runQueuedSyncs();
    expect(syncs.map((s) => s.data.id).sort()).toEqual([...ids].sort());
  });
});
