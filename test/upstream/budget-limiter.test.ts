import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRequestRateLimiter, type BudgetLane } from '../../src/upstream/index.ts';
import { metricsRegistry } from '../../src/metrics/index.ts';

// The limiter's pacing runs on timers and its clock on performance.now(): both are faked, so
// these tests count grants per simulated second exactly, whatever the machine's load.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

let serial = 0;
function limiter(rps: number, extra: { receiptsShare?: number; logger?: pino.Logger } = {}) {
  serial += 1;
  return createRequestRateLimiter({
    rps,
    key: `budget-test-${serial}`,
    merchantId: 'm',
    environment: 'sandbox',
    nowMs: () => performance.now(),
    ...extra,
  });
}

/** `callers` loops, each acquiring again as soon as it is granted, until `ms` have passed. */
async function saturate(
  acquire: (lane: BudgetLane) => Promise<void>,
  lanes: Record<BudgetLane, number>,
  ms: number,
) {
  const granted: Record<BudgetLane, number> = { books: 0, receipts: 0 };
  let running = true;
  const loops = (Object.keys(lanes) as BudgetLane[]).flatMap((lane) =>
    Array.from({ length: lanes[lane] }, async () => {
      while (running) {
        await acquire(lane);
        if (running) granted[lane] += 1;
      }
    }),
  );
  await vi.advanceTimersByTimeAsync(ms);
  running = false;
  // Let every loop's pending acquire be granted so the test ends cleanly.
  await vi.advanceTimersByTimeAsync(2_000);
  await Promise.all(loops);
  return granted;
}

describe('the budget: paced grants that use all of PAYSYNC_UPSTREAM_RPS', () => {
  it('hands 8 concurrent callers the whole budget: 20 a second at rps 20', async () => {
    const budget = limiter(20);
    const granted = await saturate(
      (lane) => budget.acquire(lane),
      { books: 8, receipts: 0 },
      10_000,
    );
    // 10 seconds at 20 a second, the first grant at once.
    expect(granted.books).toBeGreaterThanOrEqual(199);
    expect(granted.books).toBeLessThanOrEqual(201);
  });

  it('spaces grants evenly: never two within less than 1/rps of each other', async () => {
    const budget = limiter(10);
    const times: number[] = [];
    const waiting = Array.from({ length: 12 }, () =>
      budget.acquire().then(() => times.push(performance.now())),
    );
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all(waiting);
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(99);
    expect(times.at(-1)! - times[0]!).toBeLessThanOrEqual(1_110);
  });

  it('an idle spell earns no burst: after quiet seconds the next grants are paced again (half an interval of catch-up at most)', async () => {
    const budget = limiter(10);
    await budget.acquire();
    await vi.advanceTimersByTimeAsync(5_000);
    const times: number[] = [];
    const waiting = Array.from({ length: 3 }, () =>
      budget.acquire().then(() => times.push(performance.now())),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(waiting);
    expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(149);
  });

  it('a waiting request whose signal aborts leaves the queue with the abort reason', async () => {
    const budget = limiter(1);
    await budget.acquire();
    const controller = new AbortController();
    const waiting = budget.acquire('books', controller.signal);
    expect(budget.waiting().books).toBe(1);
    controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
    expect(budget.waiting().books).toBe(0);
  });
});

describe('receipts behind the books', () => {
  it('while both wait, receipts get their share (20 %) and the books the rest', async () => {
    const budget = limiter(20);
    const granted = await saturate(
      (lane) => budget.acquire(lane),
      { books: 8, receipts: 8 },
      10_000,
    );
    const total = granted.books + granted.receipts;
    expect(total).toBeGreaterThanOrEqual(199);
    expect(granted.receipts / total).toBeGreaterThan(0.18);
    expect(granted.receipts / total).toBeLessThan(0.22);
  });

  it('with the books idle, receipts take the whole budget', async () => {
    const budget = limiter(20);
    const granted = await saturate(
      (lane) => budget.acquire(lane),
      { books: 0, receipts: 8 },
      5_000,
    );
    expect(granted.receipts).toBeGreaterThanOrEqual(99);
  });

  it('a share of 0 holds receipts back until the books are idle', async () => {
    const budget = limiter(20, { receiptsShare: 0 });
    const granted = await saturate(
      (lane) => budget.acquire(lane),
      { books: 4, receipts: 4 },
      3_000,
    );
    // Only the receipts that were first in line before any book request waited.
    expect(granted.receipts).toBeLessThanOrEqual(1);
    expect(granted.books).toBeGreaterThanOrEqual(58);
  });
});

describe("the service's real limit: a 429 slows the budget down, and it climbs back", () => {
  function capturedLogger() {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    return { logger: pino({ level: 'info' }, stream), lines };
  }

  it('cuts the rate to 70 %, holds every lane for Retry-After, logs one line per run of 429s, and climbs back to the ceiling', async () => {
    const { logger, lines } = capturedLogger();
    const budget = limiter(20, { logger });
    await budget.acquire();
    for (let i = 0; i < 5; i += 1) budget.throttled(2_000);
    expect(budget.currentRate()).toBeCloseTo(14, 5);
    // Nothing is granted while the Retry-After holds.
    let granted = false;
    const waiting = budget.acquire('books').then(() => (granted = true));
    await vi.advanceTimersByTimeAsync(1_900);
    expect(granted).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    await waiting;
    expect(granted).toBe(true);
    // A 429 a second later is a new signal: cut again.
    await vi.advanceTimersByTimeAsync(1_000);
    budget.throttled(undefined);
    const cut = budget.currentRate();
    expect(cut).toBeLessThan(14);
    // Calm seconds climb back, slowly near the rate that met the 429, to the ceiling.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(budget.currentRate()).toBeGreaterThan(cut);
    expect(budget.currentRate()).toBeLessThan(20);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(budget.currentRate()).toBe(20);
    const throttling = lines.filter((line) => String(line.msg).includes('is throttling'));
    expect(throttling).toHaveLength(1);
    expect(throttling[0]).toMatchObject({ ceiling: 20, from: 20, to: 14, retryAfterMs: 2_000 });
    const back = lines.filter((line) => String(line.msg).includes('back at its ceiling'));
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ throttled: 6 });
  });

  it('publishes the current rate and each lane’s waiting requests as metrics', async () => {
    const budget = limiter(10);
    budget.throttled(undefined);
    const text = await metricsRegistry.metrics();
    expect(text).toMatch(/^paysync_upstream_rate_current 7$/m);
    await budget.acquire();
    const waiting = [budget.acquire('receipts'), budget.acquire('receipts')];
    expect(await metricsRegistry.metrics()).toMatch(
      /^paysync_upstream_waiting\{lane="receipts"\} 2$/m,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(waiting);
  });
});
