import type { SpanKind } from '@opentelemetry/api';
import {
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';

export { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
export type { Attributes, Span, SpanContext } from '@opentelemetry/api';

/**
 * Where a span sits: the span it is a child of (and so its trace), passed by hand from the work
 * that opened it to the work it calls. paysync never asks for an "active" context: on Node 20
 * that is AsyncLocalStorage, whose promise hooks cost every promise of the process, sampled or
 * not (docs/performance.md, "Traces: what they cost").
 */
export type TraceContext = Context;

/** The tracer every paysync span comes from; a no-op until the SDK is started. */
const tracer = trace.getTracer('paysync');

export interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** The parent. @defaultValue none: the span starts a trace of its own */
  readonly parent?: TraceContext | undefined;
  readonly links?: readonly SpanContext[];
}

function reasonText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Runs `work` inside a new span, handing it the span and the context its own children take as
 * their parent, and ends the span when `work` settles: a thrown error marks the span as failed
 * (its type and message, never a stack with data) and is rethrown. With tracing off this is the
 * API's no-op span: a function call and nothing more.
 *
 * Under a parent that is not sampled no span is made: `work` runs under the parent's own
 * (non-recording) span and context. The samplers paysync is run with decide a child as its
 * parent was (`parentbased_*` follow the parent, `traceidratio` decides by the trace id, which
 * a child shares), so such a child would record nothing; making it cost about as much as the
 * sampled spans (docs/performance.md, "Traces: what they cost").
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span, context: TraceContext) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? ROOT_CONTEXT;
  const parentSpan = trace.getSpan(parent);
  if (parentSpan && isUnsampled(parentSpan.spanContext())) return work(parentSpan, parent);
  const links: Link[] | undefined = options.links?.map((spanContext) => ({
    context: spanContext,
  }));
  const span = tracer.startSpan(
    name,
    {
      ...(options.kind !== undefined ? { kind: options.kind } : {}),
      ...(options.attributes ? { attributes: options.attributes } : {}),
      ...(links && links.length > 0 ? { links } : {}),
    },
    parent,
  );
  try {
    return await work(span, trace.setSpan(parent, span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: reasonText(error) });
    throw error;
  } finally {
    span.end();
  }
}

/** The span a context carries (the one its children hang under), if any. */
export function spanOf(context: TraceContext | undefined): Span | undefined {
  return context ? trace.getSpan(context) : undefined;
}

/** Marks a span as failed with a one-line reason (no body, no secret). */
export function failSpan(span: Span, reason: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}

/**
 * The W3C `traceparent` of the span `context` carries, to keep in a job or a row so the work
 * done later continues this trace; `undefined` when tracing is off or there is no span.
 */
export function traceparentOf(context: TraceContext | undefined): string | undefined {
  const spanContext = spanOf(context)?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  // The W3C header as the propagator writes it (version 00), without a carrier per call.
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** The context a carried `traceparent` stands for (the root context when there is none). */
export function contextOfTraceparent(traceparent: string | undefined): TraceContext {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** The span context a carried `traceparent` names, for a link; `undefined` when none. */
export function spanContextOfTraceparent(traceparent: string | undefined): SpanContext | undefined {
  if (!traceparent) return undefined;
  const spanContext = trace.getSpanContext(contextOfTraceparent(traceparent));
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * Where a piece of work done for one carried `traceparent` belongs inside a span that serves
 * several (a sync batch, whose context is `within`): under `within` when it is of the same trace
 * (or nothing was carried), else under the carried context, linked back to `within`'s span.
 */
export function continueTrace(
  traceparent: string | undefined,
  within: TraceContext,
): Pick<SpanOptions, 'parent' | 'links'> {
  const carried = spanContextOfTraceparent(traceparent);
  const serving = spanOf(within)?.spanContext();
  if (!carried || !serving || carried.traceId === serving.traceId) return { parent: within };
  return { parent: contextOfTraceparent(traceparent), links: [serving] };
}

/** A real span context (not the no-op's) whose trace is not sampled. */
function isUnsampled(spanContext: SpanContext): boolean {
  return (
    (spanContext.traceFlags & TraceFlags.SAMPLED) !== TraceFlags.SAMPLED &&
    trace.isSpanContextValid(spanContext)
  );
}

function isSampled(spanContext: SpanContext | undefined): spanContext is SpanContext {
  return (
    spanContext !== undefined &&
    trace.isSpanContextValid(spanContext) &&
    (spanContext.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED
  );
}

/**
 * The trace id of `span` when it is sampled (its spans reach the collector): kept on the row the
 * work stored, so `paysync show` can name the trace; `undefined` with tracing off or unsampled.
 */
export function sampledTraceId(span: Span | undefined): string | undefined {
  const spanContext = span?.spanContext();
  return isSampled(spanContext) ? spanContext.traceId : undefined;
}

/**
 * `trace_id` and `span_id` of `span` when it is sampled (a trace ops can open), for the log
 * lines written inside it; an empty object with tracing off or an unsampled span.
 */
export function traceLogFields(span: Span | undefined): { trace_id?: string; span_id?: string } {
  const spanContext = span?.spanContext();
  if (!isSampled(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
