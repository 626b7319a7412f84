import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { inSpan, traced, traceLogFields, type TraceScoped } from '../../src/tracing/index.ts';
import { inMemoryTraces } from '../support/in-memory-traces.ts';

const exporter = inMemoryTraces();

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const logger = createLogger({
    pretty: false,
    destination: {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  });
  return { logger, lines, raw };
}

describe('log lines joined to traces', () => {
  it('a line written by work inside a span carries its trace_id and span_id; one outside carries neither', async () => {
    const { logger, lines, raw } = capturingLogger();
    const deps: TraceScoped & { logger: typeof logger } = { logger };
    deps.logger.info('before');
    await inSpan('outer', {}, async (_span, outer) => {
      const inOuter = traced(deps, outer);
      await Promise.resolve();
      inOuter.logger.info('inside');
      await inSpan('inner', { parent: inOuter.trace }, async (_inner, inner) => {
        traced(inOuter, inner).logger.info('nested');
      });
    });
    deps.logger.info('after');
    const [outer, inner] = [...exporter.getFinishedSpans()].reverse();
    expect(outer!.name).toBe('outer');
    expect(lines.map((line) => [line.msg, line.trace_id, line.span_id])).toEqual([
      ['before', undefined, undefined],
      ['inside', outer!.spanContext().traceId, outer!.spanContext().spanId],
      ['nested', inner!.spanContext().traceId, inner!.spanContext().spanId],
      ['after', undefined, undefined],
    ]);
    // A nested span's ids replace its parent's: each line names one span, once.
    const nested = raw.find((line) => line.includes('"nested"'))!;
    expect(nested.match(/"trace_id"/g)).toHaveLength(1);
    expect(inner!.parentSpanContext?.spanId).toBe(outer!.spanContext().spanId);
  });

  it('a span whose work throws is marked failed, and the error goes on', async () => {
    await expect(
      inSpan('failing', {}, () => Promise.reject(new Error('the ledger is closed'))),
    ).rejects.toThrow('the ledger is closed');
    const failing = exporter.getFinishedSpans().find((span) => span.name === 'failing')!;
    expect(failing.status).toEqual({ code: 2, message: 'Error: the ledger is closed' });
  });

  it('gives no fields with no span', () => {
    expect(traceLogFields(undefined)).toEqual({});
  });
});
