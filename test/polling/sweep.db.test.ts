import { afterEach, describe, expect, it } from 'vitest';
import { missedWebhooksTotal, readCheckpoint, sweepStreamKey } from '../../src/polling/index.ts';
import { recentRuns } from '../../src/runs/index.ts';
import { compareWithTruth, describeState } from '../processing/support/end-state.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { testDialect } from '../support/test-database.ts';
import { createSweepFixture, type SweepFixture } from './support/sweep-fixture.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

async function missedMetric(kind: string): Promise<number> {
  const metric = await missedWebhooksTotal.get();
  return metric.values.find((v) => v.labels.kind === kind)?.value ?? 0;
}

/** Section 2: list sweeps are the net under lost webhooks. */
describe(`sweeps on ${testDialect()}`, () => {
  let fixture: SweepFixture;
  afterEach(async () => {
    await fixture?.cleanup();
  });

  it('with no webhook registration at all, the ledger converges within two sweep intervals', async () => {
    fixture = await createSweepFixture();
    const { sim, database } = fixture;
    const missedBefore = {
      transfer: await missedMetric('transfer'),
      payment_intent: await missedMetric('payment_intent'),
    };
    let swept = false;
    await generateMixedTraffic(sim, fixture.client, {
      transfers: 120,
      paymentIntents: 120,
      refunds: 0,
      paymentRefunds: 0,
      pauseMs: 0,
      // The first tick of the schedule lands mid-traffic: many items are not final yet.
      onBatch: async (created) => {
        if (swept || created < 120) return;
        swept = true;
        expect((await fixture.sweep()).outcome).toBe('succeeded');
      },
    });
    const first = await compareWithTruth(database.db, sim);
    expect(first.statusMismatches.length).toBeGreaterThan(0);

    sim.control.advance(5 * MINUTE);
    const second = await fixture.sweep();
    expect(second.outcome).toBe('succeeded');
    const state = await compareWithTruth(database.db, sim);
    expect(state.items).toBe(240);
    expect(state.statusMismatches, JSON.stringify(describeState(state))).toEqual([]);
    expect(state.unbalancedJournals).toEqual([]);
    expect(state.settlementProblems).toEqual([]);

    // Every item was first learned from a sweep, and says so.
    const firstSightings = await database.db
      .selectFrom('status_history')
      .select(['via', (eb) => eb.fn.countAll<number>().as('count')])
      .where('from_status', 'is', null)
      .groupBy('via')
      .execute();
    expect(firstSightings.map((r) => [r.via, Number(r.count)])).toEqual([['sweep', 240]]);
    const journalVia = await database.db.selectFrom('journals').select('via').distinct().execute();
    expect(journalVia.map((r) => r.via)).toEqual(['sweep']);
    // No webhook named any of them: each one counts as missed, once.
    const runs = await recentRuns(database.db, { task: 'sweep' });
    expect(runs.reduce((sum, r) => sum + r.itemsMissed, 0)).toBe(240);
    expect((await missedMetric('transfer')) - missedBefore.transfer).toBe(120);
    expect((await missedMetric('payment_intent')) - missedBefore.payment_intent).toBe(120);
    // Items come from list pages, never one fetch per item: 480 item reads (240 items, two
    // sweeps) in a small multiple of N / perPage calls (the window walker splits full pages).
    const calls = runs.reduce((sum, r) => sum + r.upstreamCalls, 0);
    expect(calls).toBeLessThan(120);
    expect(calls).toBeGreaterThanOrEqual(Math.ceil(480 / 50));
  });

  it('after a week of downtime the checkpoint still covers every creation window', async () => {
    fixture = await createSweepFixture();
    const { sim, database } = fixture;
    expect((await fixture.sweep()).outcome).toBe('succeeded');
    const before = await readCheckpoint(database.db, sweepStreamKey('transfers', 'sandbox'));
    // Seven days with nobody sweeping, a few transfers created each day.
    for (let day = 0; day < 7; day += 1) {
      for (let i = 0; i < 5; i += 1) {
        sim.control.createTransfer({
          amount: 1000 + day * 10 + i,
          reference: `down-${day}-${i}`,
          destination: { number: `+2217710000${day}${i}11` },
        });
        sim.control.advance(3 * 3_600_000);
      }
      sim.control.advance(DAY - 15 * 3_600_000);
    }
    const after = await fixture.sweep();
    expect(after.outcome).toBe('succeeded');
    const [transfers] = after.value!.filter((r) => r.kind === 'transfers');
    expect(Date.parse(transfers!.from)).toBe(Date.parse(before!.position) - 10 * MINUTE);
    const state = await compareWithTruth(database.db, sim);
    expect(state.byKind).toEqual({ transfer: 35 });
    expect(state.statusMismatches).toEqual([]);
  });

  it('an item created in a swept window and changed later is caught by the overlap of the next sweep', async () => {
    fixture = await createSweepFixture();
    const { sim, database } = fixture;
    await fixture.sweep();
    const created = sim.control.createTransfer({
      amount: 5000,
      reference: 'late-settler',
      destination: { number: '+221771234567811' },
    });
    await fixture.sweep();
    const seen = await database.db
      .selectFrom('transfers')
      .select('status')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(seen.status).not.toBe('successful');
    sim.control.advance(5 * MINUTE);
    await fixture.sweep();
    const settled = await database.db
      .selectFrom('transfers')
      .select('status')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(settled.status).toBe(sim.control.item(created.id)!.status);
  });
});
