import { afterEach, describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/index.ts';
import { inboxStatusCounts } from '../../src/inbox/index.ts';
import { syncBatch } from '../../src/reconcile/index.ts';
import type { SyncJobData } from '../../src/queues/index.ts';
import { metricsRegistry } from '../../src/metrics/index.ts';
import { testDialect } from '../support/test-database.ts';
import { createSyncContext, type SyncContext } from './support/sync-context.ts';

const contexts: SyncContext[] = [];
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.cleanup();
});

const TRANSFERS = 12;
const INTENTS = 12;

/**
 * A burst as a payroll and a sale make it: transfers and payment intents created together,
 * some failing, every one settled, and a webhook about each stored in the inbox. Returns the
 * references the receiver would hand to the sync batches.
 */
async function burst(ctx: SyncContext): Promise<SyncJobData[]> {
  const refs: SyncJobData[] = [];
  for (let n = 0; n < TRANSFERS; n += 1) {
    const failing = n % 4 === 0;
    const transfer = ctx.sim.control.createTransfer({
      amount: 1000 + n,
      reference: `payroll-${n}`,
      // The sandbox's failing number ends in 9901 (docs/simulator.md).
      destination: { number: failing ? '221770009901' : `2217700${String(n).padStart(5, '1')}` },
    });
    const inboxId = await ctx.inboxEvent({ kind: 'transfer', id: transfer.id });
    refs.push({ kind: 'transfer', id: transfer.id, inboxId, via: 'webhook' });
  }
  for (let n = 0; n < INTENTS; n += 1) {
    const intent = ctx.sim.control.createPaymentIntent({
      amount: 2000 + n,
      purchaseReference: `sale-${n}`,
    });
    const inboxId = await ctx.inboxEvent({ kind: 'payment_intent', id: intent.id });
    refs.push({ kind: 'payment_intent', id: intent.id, inboxId, via: 'webhook' });
  }
  ctx.sim.control.advance(60_000);
  for (const ref of refs) {
    const item = ctx.sim.control.item(ref.id!);
    if (item && !['successful', 'failed'].includes(String(item.status)))
      ctx.sim.control.settle(ref.id!);
  }
  return refs;
}

/** The books by reference (ids differ between simulators): status, amount, and journal nets. */
async function booksByReference(db: Executor) {
  const transfers = await db
    .selectFrom('transfers')
    .select(['id', 'reference', 'status', 'amount'])
    .orderBy('reference')
    .execute();
  const intents = await db
    .selectFrom('payment_intents')
    .select(['id', 'purchase_reference as reference', 'status', 'amount'])
    .orderBy('purchase_reference')
    .execute();
  const lines = await db
    .selectFrom('journal_lines as l')
    .innerJoin('journals as j', 'j.id', 'l.journal_id')
    .select(['j.resource_id', 'l.account', 'l.currency', 'l.amount'])
    .execute();
  const netOf = (id: string) => {
    const net: Record<string, number> = {};
    for (const line of lines.filter((l) => l.resource_id === id)) {
      const key = `${line.account} ${line.currency}`;
      net[key] = (net[key] ?? 0) + Number(line.amount);
    }
    return net;
  };
  return [...transfers, ...intents].map(({ id, ...rest }) => ({ ...rest, net: netOf(id) }));
}

/** The refs in batches of five, as group commits hand them over. */
async function syncInBatches(ctx: SyncContext, refs: readonly SyncJobData[]) {
  for (let at = 0; at < refs.length; at += 5) {
    await syncBatch(ctx.deps, { refs: refs.slice(at, at + 5) }, { attempt: 1 });
  }
}

async function openRows(ctx: SyncContext): Promise<number> {
  const counts = await inboxStatusCounts(ctx.database.db);
  return (counts.get('received') ?? 0) + (counts.get('processing') ?? 0);
}

/**
 * A burst synced in batches with the simulator's clock `behindMs` behind ours, so each item was
 * created that long before its event arrived; checks every item booked final and the inbox closed.
 */
async function bookedWithClockBehind(seed: number, behindMs: number): Promise<SyncContext> {
  const ctx = await createSyncContext({
    sim: { seed, startAt: new Date(Date.now() - behindMs), freezeClock: true },
  });
  contexts.push(ctx);
  await syncInBatches(ctx, await burst(ctx));
  const books = await booksByReference(ctx.database.db);
  expect(books).toHaveLength(TRANSFERS + INTENTS);
  expect(books.every((item) => ['successful', 'failed'].includes(item.status))).toBe(true);
  expect(await openRows(ctx)).toBe(0);
  return ctx;
}

describe(`window reads on ${testDialect()}`, () => {
  it('a burst waiting to be synced is read by creation window: a few list pages instead of a read per item, and the same books', async () => {
    const byWindow = await createSyncContext({
      sim: { seed: 37, startAt: new Date(), freezeClock: true },
    });
    const perItem = await createSyncContext({
      sim: { seed: 37, startAt: new Date(), freezeClock: true },
      overrides: { windowReads: false },
    });
    contexts.push(byWindow, perItem);
    await syncInBatches(byWindow, await burst(byWindow));
    await syncInBatches(perItem, await burst(perItem));

    const items = TRANSFERS + INTENTS;
    // Per item: one read each (a transfer by reference, an intent by id).
    expect(perItem.deps.upstream.stats().requests).toBeGreaterThanOrEqual(items);
    // By window: a few pages per kind cover every item.
    expect(byWindow.deps.upstream.stats().requests).toBeLessThanOrEqual(items / 4);
    expect(await openRows(byWindow)).toBe(0);
    expect(await openRows(perItem)).toBe(0);

    const books = await booksByReference(byWindow.database.db);
    expect(books).toHaveLength(items);
    expect(books.filter((item) => item.status === 'failed').length).toBe(TRANSFERS / 4);
    expect(books.every((item) => ['successful', 'failed'].includes(item.status))).toBe(true);
    expect(books).toEqual(await booksByReference(perItem.database.db));

    const metrics = await metricsRegistry.metrics();
    expect(metrics).toMatch(
      /paysync_window_reads_total\{kind="transfer",outcome="complete"\} [1-9]/,
    );
  });

  it('items whose events came a minute after their creation (webhooks behind a backlog) are found in earlier spans of the window, not read one by one', async () => {
    // The simulator's clock runs a minute behind: each event arrives a minute after its item
    // was created, far past the hint's 10 s of slack, well inside the 15 minutes a window reaches.
    const ctx = await bookedWithClockBehind(39, 60_000);
    // A kind: the window's own span and three earlier ones (10, 20 and 40 s back), and the
    // walker's probe of a second page behind the first short page that held items: 10 requests
    // in all, not the 24 reads of one item each (before: every item read by itself, after a
    // window that found none of them).
    expect(ctx.deps.upstream.stats().requests).toBeLessThanOrEqual(10);
  });

  it('an item the window misses (its creation long before its event) is read by itself: it costs a request, never the item', async () => {
    // The simulator's clock runs an hour behind: every item was created an hour before its
    // event arrived, far before the window the events suggest.
    const ctx = await bookedWithClockBehind(38, 3_600_000);
    // Each item read by itself, plus the window pages that found nothing.
    expect(ctx.deps.upstream.stats().requests).toBeGreaterThanOrEqual(TRANSFERS + INTENTS);
  });
});
