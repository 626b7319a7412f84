import type { Job } from 'bullmq';
import type { ScheduledJobData } from '../src/queues/index.ts';
import { recordScheduledRun, type RecordedRun, type RunHandle } from '../src/runs/index.ts';
import type { JobContext } from './job-context.ts';
import { inSpan, SpanKind, traced, TRACE_ATTRIBUTES, type Span } from '../src/tracing/index.ts';

/** The job's result line when a task says nothing of its own: the outcome, and why if not clean. */
function outcomeLine(recorded: RecordedRun<unknown>): string {
  return `${recorded.outcome}${recorded.error ? ` (${recorded.error})` : ''}`;
}

/**
 * The processor of a scheduled task: its tick (task and slot) runs `work` under a run record
 * (src/runs), so every scheduled job leaves a row in `scheduled_runs` the same way. `work` is
 * handed `context` within the tick's span (its upstream calls, the syncs it queues and its log
 * lines belong to the tick's trace). `summary` turns the recorded run into the job's result
 * line. @defaultValue the outcome and its reason
 */
export function scheduledJob<T>(
  context: JobContext,
  work: (run: RunHandle, context: JobContext) => Promise<T>,
  summary: (recorded: RecordedRun<T>) => string = outcomeLine,
): (job: Job<ScheduledJobData>) => Promise<string> {
  return (job) =>
    inTickSpan(context, job, async (scoped, span) => {
      const recorded = await recordScheduledRun(
        {
          db: context.db,
          logger: context.logger,
          staleRunAfterMs: context.polling.staleRunAfterMs,
          now: context.now,
        },
        job.data,
        (run) => work(run, scoped),
      );
      span.setAttribute(TRACE_ATTRIBUTES.outcome, recorded.outcome);
      return summary(recorded);
    });
}

/**
 * A tick of a scheduled task in a trace of its own (docs/observability.md): the root span
 * `paysync.scheduled <task>`, and `work` handed `context` within it (its upstream calls, the
 * syncs it queues and its log lines belong to the tick's trace).
 */
export function inTickSpan<T>(
  context: JobContext,
  job: Job<ScheduledJobData>,
  work: (context: JobContext, span: Span) => Promise<T>,
): Promise<T> {
  return inSpan(
    `paysync.scheduled ${job.data.task}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'bullmq',
        'messaging.destination.name': 'scheduled',
        [TRACE_ATTRIBUTES.task]: job.data.task,
        [TRACE_ATTRIBUTES.slot]: job.data.slot,
        ...(context.tenant !== undefined ? { [TRACE_ATTRIBUTES.tenant]: context.tenant } : {}),
      },
    },
    (span, tick) => work(traced(context, tick), span),
  );
}
