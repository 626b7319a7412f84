// Loaded only by startTracing, when an OTLP endpoint is set: the one file importing the SDK.
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Tracing, TracingDiagnostics } from './tracing-types.ts';
import type { TracingSettings } from './tracing-settings.ts';

/**
 * A NodeTracerProvider registered globally (W3C trace context; no context manager: paysync passes
 * each span's context by hand, so AsyncLocalStorage's promise hooks never run), its spans batched
 * to the OTLP/HTTP exporter of the chosen protocol. Endpoint, headers, timeout, compression,
 * sampler and batch sizes are the SDK's own reading of the `OTEL_*` variables; the service name is `OTEL_SERVICE_NAME`, else `paysync`.
 */
export function startSdk(settings: TracingSettings, diagnostics: TracingDiagnostics): Tracing {
  diag.setLogger(
    {
      error: (message) => diagnostics.warn({ source: 'opentelemetry' }, message),
      warn: (message) => diagnostics.warn({ source: 'opentelemetry' }, message),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    DiagLogLevel.WARN,
  );
  const exporter =
    settings.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'paysync' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register({ contextManager: null });
  return {
    async shutdown() {
      await provider.shutdown().catch((error: unknown) => {
        diagnostics.warn(
          { source: 'opentelemetry', reason: String(error) },
          'traces not all sent at shutdown',
        );
      });
    },
  };
}
