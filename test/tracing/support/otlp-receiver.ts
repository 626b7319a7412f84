import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, flattened with its resource. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly statusCode: number;
  readonly resource: Readonly<Record<string, unknown>>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

interface KeyValue {
  key: string;
  value?: AnyValue;
}

interface ExportTraceServiceRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: KeyValue[];
        links?: { traceId: string; spanId: string }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

function valueOf(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends `/v1/traces`). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Raw request bodies as received, to search for what must never be exported. */
  readonly bodies: string[];
  close(): Promise<void>;
}

/**
 * A real OTLP/HTTP receiver on 127.0.0.1 for the JSON encoding of the protocol
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`): `POST /v1/traces` with an
 * ExportTraceServiceRequest, answered with an empty ExportTraceServiceResponse.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      const exported = JSON.parse(text) as ExportTraceServiceRequest;
      for (const resourceSpans of exported.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind ?? 0,
              attributes: attributesOf(span.attributes),
              links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
              statusCode: span.status?.code ?? 0,
              resource,
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
