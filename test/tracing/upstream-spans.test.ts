import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamClient, errorBodies } from '../../src/upstream/index.ts';
import { inSpan } from '../../src/tracing/index.ts';
import { inMemoryTraces } from '../support/in-memory-traces.ts';

const API_KEY = 'sk_test_never_in_a_span_0123456789';
const exporter = inMemoryTraces();
let server: Server;
let answers: number[] = [];

beforeAll(async () => {
  server = createServer((_request, response) => {
    const status = answers.shift() ?? 200;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(status === 429 ? errorBodies.throttled() : []));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function client() {
  return createUpstreamClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: API_KEY,
    merchantId: 'mch_traced',
    environment: 'sandbox',
    rps: 1000,
    retryInitialDelayMs: 1,
    retryMaxDelayMs: 5,
    now: () => new Date(),
  });
}

describe('a call to the payment service, as a span', () => {
  it('one client span per call under the span it is given: operation, last status, tries and 429s', async () => {
    answers = [429, 429, 200];
    await inSpan('paysync.sync.item', {}, (_span, item) => client().within(item).listWebhooks());
    const [call, item] = exporter.getFinishedSpans();
    expect(call!.name).toBe('upstream listWebhooks');
    expect(call!.parentSpanContext?.spanId).toBe(item!.spanContext().spanId);
    expect(call!.attributes).toEqual({
      'http.request.method': 'GET',
      'paysync.upstream.operation': 'listWebhooks',
      'http.response.status_code': 200,
      'paysync.upstream.attempt': 3,
      'paysync.upstream.rate_limited': 2,
    });
    expect(call!.status.code).toBe(0);
    expect(JSON.stringify(call!.attributes)).not.toContain(API_KEY);
  });

  it('a call given no span starts a trace of its own; a scoped client shares its counters', async () => {
    exporter.reset();
    answers = [200, 200];
    const base = client();
    let item: string | undefined;
    await inSpan('paysync.sync.item', {}, async (span, traced) => {
      item = span.spanContext().traceId;
      await base.within(traced).listWebhooks();
    });
    await base.listWebhooks();
    const calls = exporter
      .getFinishedSpans()
      .filter((span) => span.name === 'upstream listWebhooks');
    expect(calls.map((call) => call.spanContext().traceId === item)).toEqual([true, false]);
    expect(calls[1]!.parentSpanContext).toBeUndefined();
    expect(base.stats().requests).toBe(2);
  });

  it('a call that fails for good is a failed span with its one-line reason', async () => {
    exporter.reset();
    answers = [500, 500, 500, 500, 500, 500, 500, 500, 500, 500];
    await expect(client().listWebhooks()).rejects.toThrow();
    const [call] = exporter.getFinishedSpans();
    expect(call!.attributes['http.response.status_code']).toBe(500);
    expect(call!.status.code).toBe(2);
    expect(call!.status.message).not.toContain(API_KEY);
  });
});
