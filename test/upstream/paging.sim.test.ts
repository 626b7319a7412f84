import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_ORDERS } from '../../src/sim/faults/fault-settings.ts';
import { walkWindowPages, type UpstreamClient } from '../../src/upstream/index.ts';
import { clientFor, startSimulator, type RunningSimulator } from './support/sim-fixture.ts';

type Kind = 'transfer' | 'payment_intent';
const ORDERS = LIST_ORDERS;
const HOUR = 3_600_000;

let sim: RunningSimulator;
let upstream: UpstreamClient;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 3, freezeClock: true });
  upstream = clientFor(sim);
});
afterAll(async () => {
  await sim.stop();
});

const iso = (ms: number) => new Date(ms).toISOString();

function idsInWindow(kind: Kind, fromMs: number, toMs: number): Set<string> {
  const ids = new Set<string>();
  for (const item of sim.control.groundTruth({ kind }).items) {
    const createdMs = Date.parse(item.resource.createdAt as string);
    if (createdMs >= fromMs && createdMs <= toMs) ids.add(item.id);
  }
  return ids;
}

/** What happens between two requests of the walk. */
const mutation = fc.record({
  backdatedInserts: fc.nat({ max: 6 }),
  insertsAfterWindow: fc.nat({ max: 3 }),
  updates: fc.nat({ max: 4 }),
  order: fc.constantFrom(...ORDERS),
});

const scenario = fc.record({
  kind: fc.constantFrom<Kind>('transfer', 'payment_intent'),
  inWindow: fc.nat({ max: 60 }),
  outside: fc.nat({ max: 10 }),
  // Items sharing one millisecond, on the bounds and inside: the corner where pages shift.
  atFrom: fc.nat({ max: 4 }),
  atTo: fc.nat({ max: 4 }),
  sameInstant: fc.nat({ max: 14 }),
  perPage: fc.integer({ min: 4, max: 15 }),
  order: fc.constantFrom(...ORDERS),
  mutations: fc.array(mutation, { maxLength: 12 }),
});

describe('walkWindowPages', () => {
  it('loses and repeats nothing under concurrent inserts, updates and any order (100 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        sim.control.reset();
        sim.control.setFaults({ listOrder: s.order });
        const nowMs = Date.parse(sim.control.now());
        const toMs = nowMs - HOUR;
        const fromMs = toMs - 2 * HOUR;
        const seed = (count: number, from: number, to: number) => {
          if (count > 0)
            sim.control.seed({ kind: s.kind, count, from: iso(from), to: iso(to), failureRate: 0 });
        };
        seed(s.inWindow, fromMs, toMs);
        seed(s.atFrom, fromMs, fromMs);
        seed(s.atTo, toMs, toMs);
        seed(s.sameInstant, fromMs + HOUR, fromMs + HOUR);
        seed(s.outside, fromMs - HOUR, fromMs - 1);
        seed(s.outside, toMs + 1, nowMs);
        const before = idsInWindow(s.kind, fromMs, toMs);

        const operation = s.kind === 'transfer' ? 'listTransfers' : 'listPaymentIntents';
        const returned: string[] = [];
        let step = 0;
        for await (const page of walkWindowPages(upstream, operation, {
          from: iso(fromMs),
          to: iso(toMs),
          perPage: s.perPage,
        })) {
          returned.push(...page.items.map((item) => item.id));
          // Each mutation happens once: endless back-dated inserts would outgrow any walk.
          const m = s.mutations[step++];
          if (!m) continue;
          sim.control.setFaults({ listOrder: m.order });
          seed(m.backdatedInserts, fromMs, toMs);
          seed(m.insertsAfterWindow, toMs + 1, nowMs);
          const all = sim.control.groundTruth({ kind: s.kind }).items;
          for (let i = 0; i < m.updates && all.length > 0; i += 1) {
            const item = all[(step * 7 + i * 13) % all.length]!;
            try {
              sim.control.settle(item.id);
            } catch {
              // Already final: nothing to update.
            }
          }
        }

        const after = idsInWindow(s.kind, fromMs, toMs);
        expect(new Set(returned).size).toBe(returned.length);
        for (const id of before) expect(returned).toContain(id);
        for (const id of returned) expect(after.has(id)).toBe(true);
      }),
      { numRuns: 100 },
    );
    // A guard, not a speed target: 100 runs take well under a minute on a quiet machine, and
    // several times that on a slow one running the other suites beside it.
  }, 240_000);

  it('a naive page-by-page walk loses items when the order changes between pages (the property has teeth)', async () => {
    sim.control.reset();
    sim.control.setFaults({ listOrder: 'createdAt-desc' });
    const nowMs = Date.parse(sim.control.now());
    const toMs = nowMs - HOUR;
    const fromMs = toMs - 2 * HOUR;
    sim.control.seed({
      kind: 'transfer',
      count: 30,
      from: iso(fromMs),
      to: iso(toMs),
      failureRate: 0,
    });
    const naive = new Set<string>();
    for (let page = 1; ; page += 1) {
      const items = await upstream.listTransfers({
        from: iso(fromMs),
        to: iso(toMs),
        page,
        perPage: 10,
      });
      for (const item of items) naive.add(item.id);
      sim.control.setFaults({ listOrder: page % 2 === 1 ? 'shuffled' : 'createdAt-asc' });
      if (items.length < 10) break;
    }
    expect(naive.size).toBeLessThan(30);

    sim.control.setFaults({ listOrder: 'createdAt-desc' });
    const walked = new Set<string>();
    let flips = 0;
    for await (const page of walkWindowPages(upstream, 'listTransfers', {
      from: iso(fromMs),
      to: iso(toMs),
      perPage: 10,
    })) {
      for (const item of page.items) walked.add(item.id);
      sim.control.setFaults({ listOrder: ORDERS[++flips % ORDERS.length]! });
    }
    expect(walked.size).toBe(30);
  });
});
