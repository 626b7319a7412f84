import type { SpanKind } from '@opentelemetry/api';
import {
  context,
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

/** The tracer every paysync span comes from; a no-op until the SDK is started. */
const tracer = trace.getTracer('paysync');

export interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** The parent; the active context when not given. */
  readonly parent?: Context;
  readonly links?: readonly SpanContext[];
}

function reasonText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Runs `work` inside a new span made active, and ends it when `work` settles: a thrown error
 * marks the span as failed (its type and message, never a stack with data) and is rethrown.
 * With tracing off this is the API's no-op span: a function call and nothing more.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const links: Link[] | undefined = options.links?.map((spanContext) => ({
    context: spanContext,
  }));
  return tracer.startActiveSpan(
    name,
    {
      ...(options.kind !== undefined ? { kind: options.kind } : {}),
      ...(options.attributes ? { attributes: options.attributes } : {}),
      ...(links && links.length > 0 ? { links } : {}),
    },
    options.parent ?? context.active(),
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: reasonText(error) });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** The active span, to note what a deeper call learnt (an attempt's status); a no-op span when off. */
export function activeSpan(): Span | undefined {
  return trace.getActiveSpan();
}

/** Sets attributes on the active span, if there is one (a no-op with tracing off). */
export function annotateActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** Marks a span as failed with a one-line reason (no body, no secret). */
export function failSpan(span: Span, reason: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}

/**
 * The W3C `traceparent` of the active span, to carry in a job or a row so the work done later
 * continues this trace; `undefined` when tracing is off or the span is not sampled.
 */
export function activeTraceparent(): string | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a carried `traceparent` stands for (the root context when there is none). */
export function contextOfTraceparent(traceparent: string | undefined): Context {
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
 * several (a sync batch): under the active span when it is of the same trace (or nothing was
 * carried), else under the carried context, linked back to the active span.
 */
export function continueTrace(
  traceparent: string | undefined,
): Pick<SpanOptions, 'parent' | 'links'> {
  const carried = spanContextOfTraceparent(traceparent);
  const active = trace.getActiveSpan()?.spanContext();
  if (!carried || !active || carried.traceId === active.traceId) return {};
  return { parent: contextOfTraceparent(traceparent), links: [active] };
}

/**
 * The trace id of `span` when it is sampled (its spans reach the collector): kept on the row the
 * work stored, so `paysync show` can name the trace; `undefined` with tracing off or unsampled.
 */
export function sampledTraceId(span: Span | undefined): string | undefined {
  const spanContext = span?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  return (spanContext.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED
    ? spanContext.traceId
    : undefined;
}

/**
 * `trace_id` and `span_id` of the active span, for every log line written inside one (the
 * logger's mixin); an empty object outside a span or with tracing off.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
