import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../../src/tracing/index.ts';

let tracing: Tracing | undefined;
afterAll(async () => {
  await tracing?.shutdown();
  trace.disable();
  context.disable();
});

describe('the SDK as the daemon starts it', () => {
  it('registers no context manager: nothing can make a span "active", so no AsyncLocalStorage runs', async () => {
    tracing = await startTracing(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: 'always_on' },
      { warn: () => undefined },
    );
    expect(tracing).toBeDefined();
    const span = trace.getTracer('test').startSpan('probe');
    // Spans are recorded (the SDK is on) ...
    expect(span.isRecording()).toBe(true);
    // ... but a context made current is not seen by the code it runs: none is kept.
    /* eslint-disable no-restricted-properties -- what the rule keeps out, tried once here */
    const seen = context.with(trace.setSpan(ROOT_CONTEXT, span), () =>
      trace.getSpan(context.active()),
    );
    /* eslint-enable no-restricted-properties */
    expect(seen).toBeUndefined();
    span.end();
  });
});
