import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createQueues,
  createRedisConnection,
  enqueueIngest,
  enqueueSync,
  enqueueSyncBatch,
  type Queues,
} from '../../src/queues/index.ts';
import { inSpan, traceparentOf } from '../../src/tracing/index.ts';
import { inMemoryTraces } from '../support/in-memory-traces.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';

inMemoryTraces();
const prefix = uniqueRedisPrefix('traces');
const redis = createRedisConnection(TEST_REDIS_URL, 'producer');
let queues: Queues;

beforeAll(() => {
  queues = createQueues({ connection: redis, prefix });
});
afterAll(async () => {
  await queues.close();
  redis.disconnect();
  await deleteRedisPrefix(prefix);
});

const TRACE_A = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const TRACE_B = '00-1bf7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01';

describe('the trace carried across BullMQ in the job data', () => {
  it('an ingest job carries the trace its row was given; none when given none', async () => {
    await enqueueIngest(queues, [101, 102], 'webhook', (id) => (id === 101 ? TRACE_A : TRACE_B));
    let tick: string | undefined;
    await inSpan('paysync.scheduled recover-inbox', {}, async (_span, traced) => {
      tick = traceparentOf(traced);
      await enqueueIngest(queues, 103, 'webhook', () => tick);
      // Nothing is taken from an "active" span: a call given no trace carries none.
      await enqueueIngest(queues, 104);
    });
    const data = Object.fromEntries(
      (await queues.ingest.getJobs(['waiting'])).map((job) => [job.data.inboxId, job.data]),
    );
    expect(data[101]).toEqual({ inboxId: 101, traceparent: TRACE_A });
    expect(data[102]).toEqual({ inboxId: 102, traceparent: TRACE_B });
    expect(tick).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(data[103]).toEqual({ inboxId: 103, traceparent: tick });
    expect(data[104]).toEqual({ inboxId: 104 });
  });

  it('a sync job continues the span that enqueued it; a batch lists every webhook it serves', async () => {
    let ingest: string | undefined;
    await inSpan('paysync.ingest', {}, async (_span, traced) => {
      ingest = traceparentOf(traced);
      await enqueueSync(queues, {
        kind: 'transfer',
        id: 'tr_traced',
        via: 'webhook',
        traceparent: ingest,
      });
      await enqueueSync(queues, {
        kind: 'transfer',
        id: 'tr_untraced',
        via: 'webhook',
        traceparent: undefined,
      });
    });
    await enqueueSyncBatch(queues, [
      { kind: 'transfer', id: 'tr_batched', inboxId: 7, via: 'webhook', traceparent: TRACE_A },
      { kind: 'transfer', id: 'tr_batched', inboxId: 8, via: 'webhook', traceparent: TRACE_B },
    ]);
    const jobs = await queues.sync.getJobs(['waiting']);
    const single = jobs.find((job) => 'id' in job.data && job.data.id === 'tr_traced')!;
    expect(single.data).toMatchObject({ id: 'tr_traced', traceparent: ingest });
    const untraced = jobs.find((job) => 'id' in job.data && job.data.id === 'tr_untraced')!;
    expect(untraced.data).toEqual({ kind: 'transfer', id: 'tr_untraced', via: 'webhook' });
    const batch = jobs.find((job) => job.name === 'sync-batch')!;
    expect(batch.data).toEqual({
      refs: [
        { kind: 'transfer', id: 'tr_batched', inboxId: 8, via: 'webhook', traceparent: TRACE_B },
      ],
      traceparents: [TRACE_A, TRACE_B],
    });
  });
});
