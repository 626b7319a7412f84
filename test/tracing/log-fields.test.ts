import { context, propagation, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { inSpan, traceLogFields } from '../../src/tracing/index.ts';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    pretty: false,
    destination: {
      write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
    },
  });
  return { logger, lines };
}

describe('log lines joined to traces', () => {
  it('a line written inside a span carries its trace_id and span_id; one outside carries neither', async () => {
    const { logger, lines } = capturingLogger();
    logger.info('before');
    await inSpan('outer', {}, async () => {
      await Promise.resolve();
      logger.info('inside');
      await inSpan('inner', {}, async () => logger.info('nested'));
    });
    logger.info('after');
    const [outer, inner] = [...exporter.getFinishedSpans()].reverse();
    expect(outer!.name).toBe('outer');
    expect(lines.map((line) => [line.msg, line.trace_id, line.span_id])).toEqual([
      ['before', undefined, undefined],
      ['inside', outer!.spanContext().traceId, outer!.spanContext().spanId],
      ['nested', inner!.spanContext().traceId, inner!.spanContext().spanId],
      ['after', undefined, undefined],
    ]);
    expect(inner!.parentSpanContext?.spanId).toBe(outer!.spanContext().spanId);
  });

  it('a span whose work throws is marked failed, and the error goes on', async () => {
    await expect(
      inSpan('failing', {}, () => Promise.reject(new Error('the ledger is closed'))),
    ).rejects.toThrow('the ledger is closed');
    const failing = exporter.getFinishedSpans().find((span) => span.name === 'failing')!;
    expect(failing.status).toEqual({ code: 2, message: 'Error: the ledger is closed' });
  });

  it('gives no fields with no active span', () => {
    expect(traceLogFields()).toEqual({});
  });
});
