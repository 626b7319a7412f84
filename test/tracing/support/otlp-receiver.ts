import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequest } from './otlp-protobuf.ts';

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
  /** Request bodies as received (decompressed), to search for what must never be exported. */
  readonly bodies: string[];
  /** Each export's Content-Type: `application/x-protobuf` or `application/json`. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

/**
 * A real OTLP/HTTP receiver on 127.0.0.1 for both encodings of the protocol (`http/protobuf`,
 * decoded by ./otlp-protobuf.ts, and `http/json`): `POST /v1/traces` with an
 * ExportTraceServiceRequest, answered with an empty ExportTraceServiceResponse (`{}` in JSON,
 * zero bytes in protobuf).
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const protobuf = request.headers['content-type'] === 'application/x-protobuf';
      contentTypes.push(request.headers['content-type'] ?? '');
      // Kept as text either way, to search for what must never be exported.
      bodies.push(body.toString('utf8'));
      const exported = (
        protobuf ? decodeTraceRequest(body) : JSON.parse(body.toString('utf8'))
      ) as ExportTraceServiceRequest;
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
      response
        .writeHead(200, {
          'content-type': protobuf ? 'application/x-protobuf' : 'application/json',
        })
        .end(protobuf ? Buffer.alloc(0) : '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
