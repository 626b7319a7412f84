import { context, propagation, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createQueues,
  createRedisConnection,
  enqueueIngest,
  enqueueSync,
  enqueueSyncBatch,
  type Queues,
} from '../../src/queues/index.ts';
import { activeTraceparent, inSpan } from '../../src/tracing/index.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';

const provider = new NodeTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
});
const prefix = uniqueRedisPrefix('traces');
const redis = createRedisConnection(TEST_REDIS_URL, 'producer');
let queues: Queues;

beforeAll(() => {
  provider.register();
  queues = createQueues({ connection: redis, prefix });
});
afterAll(async () => {
  await queues.close();
  redis.disconnect();
  await deleteRedisPrefix(prefix);
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const TRACE_A = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const TRACE_B = '00-1bf7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01';

describe('the trace carried across BullMQ in the job data', () => {
  it('an ingest job carries its own row’s trace, or the active span’s; none with no span', async () => {
    await enqueueIngest(queues, [101, 102], 'webhook', (id) => (id === 101 ? TRACE_A : TRACE_B));
    let tick: string | undefined;
    await inSpan('paysync.scheduled recover-inbox', {}, async () => {
      tick = activeTraceparent();
      await enqueueIngest(queues, 103);
    });
    await enqueueIngest(queues, 104);
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
    await inSpan('paysync.ingest', {}, async () => {
      ingest = activeTraceparent();
      await enqueueSync(queues, { kind: 'transfer', id: 'tr_traced', via: 'webhook' });
    });
    await enqueueSyncBatch(queues, [
      { kind: 'transfer', id: 'tr_batched', inboxId: 7, via: 'webhook', traceparent: TRACE_A },
      { kind: 'transfer', id: 'tr_batched', inboxId: 8, via: 'webhook', traceparent: TRACE_B },
    ]);
    const jobs = await queues.sync.getJobs(['waiting']);
    const single = jobs.find((job) => job.name === 'sync-transfer')!;
    expect(single.data).toMatchObject({ id: 'tr_traced', traceparent: ingest });
    const batch = jobs.find((job) => job.name === 'sync-batch')!;
    expect(batch.data).toEqual({
      refs: [
        { kind: 'transfer', id: 'tr_batched', inboxId: 8, via: 'webhook', traceparent: TRACE_B },
      ],
      traceparents: [TRACE_A, TRACE_B],
    });
  });
});
