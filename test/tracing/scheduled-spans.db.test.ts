/**
 * A sweep tick's trace, as the worker's `sweep` processor runs it against the simulator: the
 * root span `paysync.scheduled sweep`, the list reads and one `paysync.window.page` span per
 * committed page under it (stream, items, position), and the alert the failed transfer called
 * for, whose outbox row carries the traceparent of the page that booked it.
 */
import type { Job } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobContext } from '../../jobs/job-context.ts';
import { sweepJob } from '../../jobs/sweep.job.ts';
import { loadConfig } from '../../src/config/index.ts';
import {
  createQueues,
  createRedisConnection,
  type Queues,
  type ScheduledJobData,
} from '../../src/queues/index.ts';
import { inMemoryTraces } from '../support/in-memory-traces.ts';
import { testDialect } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import { createSweepFixture, type SweepFixture } from '../polling/support/sweep-fixture.ts';

const exporter = inMemoryTraces();
const prefix = uniqueRedisPrefix('sweep-spans');
const redis = createRedisConnection(TEST_REDIS_URL, 'producer');
let queues: Queues;
let fixture: SweepFixture;

beforeAll(async () => {
  queues = createQueues({ connection: redis, prefix });
  fixture = await createSweepFixture();
});
afterAll(async () => {
  await fixture?.cleanup();
  await queues?.close();
  redis.disconnect();
  await deleteRedisPrefix(prefix);
});

describe(`the spans of a sweep tick on ${testDialect()}`, () => {
  it('pages under the tick with their stream, items and position; the alert carries its page', async () => {
    const { sim, database, client } = fixture;
    const transfers = [1, 2, 3].map((n) =>
      sim.control.createTransfer({
        amount: 1000 * n,
        reference: `traced-${n}`,
        destination: { number: '+221771234567' },
      }),
    );
    sim.control.advance(1000);
    sim.control.settle(transfers[0]!.id, 'successful');
    sim.control.settle(transfers[1]!.id, 'failed');
    sim.control.advance(1000);

    const context = {
      db: database.db,
      upstream: client,
      queues,
      logger: pino({ level: 'silent' }),
      environment: 'sandbox',
      now: fixture.now,
      polling: loadConfig({}).polling,
    } as unknown as JobContext;
    const data: ScheduledJobData = { task: 'sweep', slot: fixture.now().toISOString() };
    const result = await sweepJob(context)({ data } as Job<ScheduledJobData>);
    expect(result).toMatch(/^succeeded: /);

    const spans = exporter.getFinishedSpans();
    const ticks = spans.filter((s) => s.name === 'paysync.scheduled sweep');
    expect(ticks).toHaveLength(1);
    const tick = ticks[0]!.spanContext();
    expect(ticks[0]!.parentSpanContext).toBeUndefined();
    // Each span of `name`, by its trace and parent: all of them the tick's children.
    const placeOf = (name: string) => {
      const named = spans.filter((s) => s.name === name);
      expect(named.length, `${name} spans`).toBeGreaterThan(0);
      expect(
        named.map((s) => ({
          traceId: s.spanContext().traceId,
          parent: s.parentSpanContext?.spanId,
        })),
      ).toEqual(named.map(() => ({ traceId: tick.traceId, parent: tick.spanId })));
      return named;
    };

    // Every page is committed under the tick, in its trace, saying what it holds and reached.
    const pages = placeOf('paysync.window.page');
    const transferPages = pages.filter(
      (s) => s.attributes['paysync.window.stream'] === 'listTransfers',
    );
    // Between them, the transfer pages committed the three transfers.
    const committed = transferPages.map((s) => s.attributes['paysync.window.items'] as number);
    expect(committed.reduce((sum, items) => sum + items, 0)).toBe(3);
    for (const page of pages) {
      expect(page.attributes).toEqual({
        'paysync.window.stream': expect.stringMatching(/^list\w+$/),
        'paysync.window.items': expect.any(Number),
        'paysync.window.position': expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
      });
    }

    // The list reads are the tick's client spans.
    placeOf('upstream listTransfers');

    // The failed transfer's alert, written with its page's commit, continues that page's trace.
    const rows = await database.db
      .selectFrom('outbox')
      .select(['kind', 'payload'])
      .where('kind', '=', 'alert')
      .execute();
    const alerts = rows.map((row) => JSON.parse(row.payload) as Record<string, unknown>);
    expect(alerts).toEqual([
      expect.objectContaining({
        reason: 'transfer_failed',
        id: transfers[1]!.id,
        traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/),
      }),
    ]);
    const [, traceId, spanId] = (alerts[0]!.traceparent as string).split('-');
    expect(traceId).toBe(tick.traceId);
    expect(transferPages.map((s) => s.spanContext().spanId)).toContain(spanId);
  });
});
