import { describe, expect, it } from 'vitest';
import { contextOfTraceparent, inSpan, spanOf, traceparentOf } from '../../src/tracing/index.ts';
import { inMemoryTraces } from '../support/in-memory-traces.ts';

const exporter = inMemoryTraces();

const SAMPLED = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const UNSAMPLED = '00-1bf7651916cd43dd8448eb211c80319c-c7ad6b7169203331-00';

/**
 * A child of an unsampled span would record nothing (docs/observability.md): inSpan makes none,
 * and hands its work the parent's context, so the work's own children and the jobs it enqueues
 * stay in the parent's unsampled trace.
 */
describe('spans under a parent that is not sampled', () => {
  it('are not made: the work runs in the parent’s context, and what it carries on is the parent’s traceparent', async () => {
    exporter.reset();
    let carried: string | undefined;
    await inSpan('paysync.sync.item', { parent: contextOfTraceparent(UNSAMPLED) }, (_s, item) =>
      inSpan('upstream getPaymentIntent', { parent: item }, async (span, call) => {
        carried = traceparentOf(call);
        expect(span.isRecording()).toBe(false);
        expect(spanOf(call)?.spanContext().spanId).toBe('c7ad6b7169203331');
      }),
    );
    expect(carried).toBe(UNSAMPLED);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('under a sampled parent they are made and recorded, as children', async () => {
    exporter.reset();
    await inSpan('paysync.sync.item', { parent: contextOfTraceparent(SAMPLED) }, (_s, item) =>
      inSpan('upstream getPaymentIntent', { parent: item }, async () => undefined),
    );
    const [call, item] = exporter.getFinishedSpans();
    expect(item!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(call!.parentSpanContext?.spanId).toBe(item!.spanContext().spanId);
    expect(call!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });
});
