import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPaymentIntent } from '../../src/ledger/index.ts';
import { metricsRegistry } from '../../src/metrics/index.ts';
import { runJanitor } from '../../src/polling/index.ts';
import type { PaymentIntent } from '../../src/upstream/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';

const ITEMS = 5_000;
const RPS = 10;
/** The simulator answers 429 above this: a little over the budget, so only a breach trips it. */
const SERVICE_RPS = 12;
const WATCH_SECONDS = 8;

let fixture: DaemonFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

/** The deployment's requests to the service so far: all, and those answered other than ok. */
async function upstreamRequests(): Promise<{ all: number; refused: number }> {
  const metric = await metricsRegistry.getSingleMetric('paysync_upstream_requests_total')!.get();
  let all = 0;
  let refused = 0;
  for (const sample of metric.values) {
    all += sample.value;
    if (sample.labels.outcome !== 'ok') refused += sample.value;
  }
  return { all, refused };
}

describe('janitor under the shared upstream rate limit', () => {
  it(`polls ${ITEMS} pending payment intents without taking the deployment over PAYSYNC_UPSTREAM_RPS`, async () => {
    fixture = await createDaemonFixture({ sim: { rps: SERVICE_RPS } });
    const { sim, database } = fixture;
    const now = sim.control.now();
    sim.control.seed({ kind: 'payment_intent', count: ITEMS, from: now, to: now, failureRate: 0 });
    const items = sim.control.groundTruth({ kind: 'payment_intent' }).items;
    expect(items).toHaveLength(ITEMS);
    // Mirrored an hour ago, still `payment_required`: every one of them is due.
    const observedAt = new Date(Date.now() - 3_600_000).toISOString();
    await database.db.transaction().execute(async (trx) => {
      for (const item of items) {
        await applyPaymentIntent(trx, item.resource as unknown as PaymentIntent, {
          via: 'poll',
          observedAt,
        });
      }
    });

    const daemon = await fixture.startDaemon(['workers'], {
      PAYSYNC_UPSTREAM_RPS: String(RPS),
      PAYSYNC_JANITOR_CRON: 'off',
    });
    const run = await runJanitor(
      {
        db: database.db,
        queues: daemon.queues,
        logger: pino({ level: 'silent' }),
        settings: fixture.config.janitor,
      },
      new Date(),
    );
    expect(run).toMatchObject({ due: ITEMS, polled: ITEMS });

    const start = await upstreamRequests();
    const perSecond: number[] = [];
    let previous = start.all;
    for (let second = 0; second < WATCH_SECONDS; second += 1) {
      await sleep(1000);
      const { all } = await upstreamRequests();
      perSecond.push(all - previous);
      previous = all;
    }
    const end = await upstreamRequests();
    const sent = end.all - start.all;
    // Busy: the budget is what holds it back (the same run without a limit sends about three
    // times as much here; the limiter spreads its points evenly and under-spends a little)…
    expect(sent).toBeGreaterThan(RPS * WATCH_SECONDS * 0.3);
    // …yet never over it: in total, in any one second, and as the service saw it (no 429).
    expect(sent).toBeLessThanOrEqual(RPS * (WATCH_SECONDS + 1));
    expect(Math.max(...perSecond)).toBeLessThanOrEqual(RPS + 2);
    expect(end.refused - start.refused).toBe(0);
    const waiting = await daemon.queues.sync.getJobCounts('waiting', 'prioritized');
    expect((waiting.waiting ?? 0) + (waiting.prioritized ?? 0)).toBeGreaterThan(0);
  }, 180_000);
});
