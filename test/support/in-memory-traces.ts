import { context, propagation, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll } from 'vitest';

/**
 * A tracer provider for this test file, registered as the daemon registers its own (no context
 * manager: paysync passes each span's context by hand, so a test that passes here would pass
 * with the SDK), its finished spans kept in memory. Unregistered after the file.
 */
export function inMemoryTraces(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register({ contextManager: null }));
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  return exporter;
}
