import type { Job } from 'bullmq';
import {
  contextOfTraceparent,
  SpanKind,
  TRACE_ATTRIBUTES,
  type SpanOptions,
} from '../src/tracing/index.ts';
import type { JobContext } from './job-context.ts';

/**
 * A job's span (docs/observability.md): it continues the trace carried in the job's
 * `traceparent` (the webhook's, or the tick's that enqueued it), else starts one of its own.
 */
export function consumerSpanOptions(
  context: Pick<JobContext, 'tenant'>,
  queue: string,
  job: Job<{ readonly traceparent?: string }>,
): SpanOptions & { attributes: Record<string, string | number> } {
  return {
    kind: SpanKind.CONSUMER,
    parent: contextOfTraceparent(job.data.traceparent),
    attributes: {
      'messaging.system': 'bullmq',
      'messaging.destination.name': queue,
      'messaging.operation.type': 'process',
      ...(job.id !== undefined ? { 'messaging.message.id': job.id } : {}),
      ...(context.tenant !== undefined ? { [TRACE_ATTRIBUTES.tenant]: context.tenant } : {}),
    },
  };
}
