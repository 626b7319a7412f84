import { UnrecoverableError, type Job } from 'bullmq';
import type { SyncJobData } from '../src/queues/index.ts';
import { syncResource } from '../src/reconcile/index.ts';
import type { JobContext } from './job-context.ts';
import { consumerSpanOptions } from './traced-job.ts';
import { inSpan, itemAttributes, traced } from '../src/tracing/index.ts';

/**
 * Adapts a sync result to BullMQ: `retry` throws the error (BullMQ backs off and tries
 * again), `stop` throws UnrecoverableError (no retry can help), the rest complete.
 */
export function runSyncJob(context: JobContext, job: Job<SyncJobData>): Promise<string> {
  const options = consumerSpanOptions(context, 'sync', job);
  return inSpan(
    'paysync.sync',
    {
      ...options,
      attributes: {
        ...options.attributes,
        ...itemAttributes({ kind: job.data.kind, id: job.data.id, tenant: context.tenant }),
      },
    },
    (_span, sync) => syncOne(traced(context, sync), job),
  );
}

async function syncOne(context: JobContext, job: Job<SyncJobData>): Promise<string> {
  const result = await syncResource(context, job.data, { attempt: job.attemptsMade + 1 });
  if (result.outcome === 'retry') {
    throw result.error instanceof Error ? result.error : new Error(result.reason);
  }
  if (result.outcome === 'stop') throw new UnrecoverableError(result.reason);
  return result.outcome;
}
