/**
 * OpenTelemetry traces (issue 43, docs/observability.md): off unless `OTEL_EXPORTER_OTLP_ENDPOINT`
 * is set, then the SDK is loaded lazily by startTracing. Spans are opened through
 * `@opentelemetry/api` alone, so with tracing off they are no-ops. The context a span's children
 * hang under is passed by hand ({@link TraceContext}, {@link traced}): nothing here reads an
 * "active" span.
 */
export { startTracing, type Tracing, type TracingDiagnostics } from './start-tracing.ts';
export {
  tracingSettings,
  TracingSettingsError,
  type OtlpProtocol,
  type TracingSettings,
} from './tracing-settings.ts';
export {
  contextOfTraceparent,
  continueTrace,
  failSpan,
  inSpan,
  sampledTraceId,
  spanContextOfTraceparent,
  spanOf,
  traceLogFields,
  traceparentOf,
  ROOT_CONTEXT,
  SpanKind,
  type Attributes,
  type Span,
  type SpanContext,
  type SpanOptions,
  type TraceContext,
} from './spans.ts';
export { traced, type TraceScoped } from './trace-scope.ts';
export { TRACE_ATTRIBUTES, itemAttributes } from './attributes.ts';
