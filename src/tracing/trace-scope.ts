import { spanOf, traceLogFields, type TraceContext } from './spans.ts';

/** A logger that can bind fields to the lines it writes (pino's `child`). */
interface BindingLogger {
  child(bindings: Record<string, unknown>): unknown;
}

/** A client whose spans can be put under a given context (the upstream client's `within`). */
interface ScopableClient {
  within(context: TraceContext): unknown;
}

/**
 * The dependencies a piece of traced work hands on: `trace` is the context its spans hang under
 * (none: each starts a trace of its own).
 */
export interface TraceScoped {
  readonly trace?: TraceContext | undefined;
  readonly logger?: BindingLogger;
  readonly upstream?: ScopableClient;
}

const unscopedLogger = Symbol('paysync.unscopedLogger');

/**
 * `deps` for the work done inside the span `context` carries (docs/observability.md): `trace` is
 * that context, so the spans the work opens are its children; the upstream client's calls are
 * too; and when the span is sampled the logger writes its `trace_id` and `span_id` on every line.
 * The context is passed by hand, never through AsyncLocalStorage (see {@link TraceContext}).
 */
export function traced<D extends TraceScoped>(deps: D, context: TraceContext): D {
  const scoped: Record<string | symbol, unknown> = { ...(deps as object), trace: context };
  if (deps.upstream) scoped.upstream = deps.upstream.within(context);
  const fields = traceLogFields(spanOf(context));
  const base = (deps as { [unscopedLogger]?: BindingLogger })[unscopedLogger] ?? deps.logger;
  if (base) {
    scoped[unscopedLogger] = base;
    // Fields bound to the logger the work was given, so a nested span's ids replace its parent's.
    scoped.logger = fields.trace_id ? base.child(fields) : base;
  }
  return scoped as D;
}
