import { propagation, context, trace } from '@opentelemetry/api';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamClient, errorBodies } from '../../src/upstream/index.ts';
import { inSpan } from '../../src/tracing/index.ts';

const API_KEY = 'sk_test_never_in_a_span_0123456789';
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let server: Server;
let answers: number[] = [];

beforeAll(async () => {
  provider.register();
  server = createServer((_request, response) => {
    const status = answers.shift() ?? 200;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(status === 429 ? errorBodies.throttled() : []));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
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
  it('one client span per call under the active span: operation, last status, tries and 429s', async () => {
    answers = [429, 429, 200];
    await inSpan('paysync.sync.item', {}, () => client().listWebhooks());
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
