/**
 * OpenTelemetry traces (issue 43, docs/observability.md): off unless `OTEL_EXPORTER_OTLP_ENDPOINT`
 * is set, then the SDK is loaded lazily by startTracing. Spans are opened through
 * `@opentelemetry/api` alone, so with tracing off they are no-ops.
 */
export { startTracing, type Tracing, type TracingDiagnostics } from './start-tracing.ts';
export {
  tracingSettings,
  TracingSettingsError,
  type OtlpProtocol,
  type TracingSettings,
} from './tracing-settings.ts';
export {
  activeSpan,
  activeTraceparent,
  annotateActiveSpan,
  contextOfTraceparent,
  continueTrace,
  failSpan,
  inSpan,
  sampledTraceId,
  spanContextOfTraceparent,
  ROOT_CONTEXT,
  SpanKind,
  traceLogFields,
  type Attributes,
  type Span,
  type SpanContext,
  type SpanOptions,
} from './spans.ts';
export { TRACE_ATTRIBUTES, itemAttributes } from './attributes.ts';
