import { setTimeout as sleep } from 'node:timers/promises';
import type { Job } from 'bullmq';
import type { SyncBatchJobData } from '../src/queues/index.ts';
import { retrySyncBatch, syncBatch } from '../src/reconcile/index.ts';
import type { JobContext } from './job-context.ts';
import {
  contextOfTraceparent,
  inSpan,
  SpanKind,
  spanContextOfTraceparent,
  traced,
  TRACE_ATTRIBUTES,
  type SpanContext,
} from '../src/tracing/index.ts';

/**
 * `sync-batch`: fetch a batch of resources and apply them in one transaction. The references
 * that failed in a way a later try may fix go back in batches of `PAYSYNC_SYNC_BATCH_SIZE`, as
 * the batch retry policy says (src/reconcile, retrySyncBatch).
 */
export function syncBatchJob(context: JobContext) {
  return (job: Job<SyncBatchJobData>): Promise<string> => {
    // One span for the batch, under the first traced webhook it serves and linked to every
    // one of them (docs/observability.md); a batch no webhook traced starts its own trace.
    const carried =
      job.data.traceparents ??
      job.data.refs.map((ref) => ref.traceparent).filter((tp) => tp !== undefined);
    const links = carried
      .map(spanContextOfTraceparent)
      .filter((link): link is SpanContext => link !== undefined);
    return inSpan(
      'paysync.sync.batch',
      {
        kind: SpanKind.CONSUMER,
        parent: contextOfTraceparent(carried[0]),
        links,
        attributes: {
          'messaging.system': 'bullmq',
          'messaging.destination.name': 'sync',
          'messaging.operation.type': 'process',
          ...(job.id !== undefined ? { 'messaging.message.id': job.id } : {}),
          [TRACE_ATTRIBUTES.batchItems]: job.data.refs.length,
          ...(context.tenant !== undefined ? { [TRACE_ATTRIBUTES.tenant]: context.tenant } : {}),
        },
      },
      (_span, batch) => runBatch(traced(context, batch), job),
    );
  };
}

async function runBatch(context: JobContext, job: Job<SyncBatchJobData>): Promise<string> {
  const attempt = job.data.attempt ?? 1;
  const result = await syncBatch(context, job.data, { attempt });
  const hold = context.syncBatchHoldAfterCommitMs ?? 0;
  if (hold > 0) {
    context.logger.warn(
      { jobId: job.id, holdMs: hold },
      'sync batch committed; holding before its acknowledgement (PAYSYNC_SYNC_BATCH_HOLD_AFTER_COMMIT_MS)',
    );
    await sleep(hold);
  }
  await retrySyncBatch(context, result.retry, attempt);
  return Object.entries(result.counts)
    .filter(([, count]) => count > 0)
    .map(([outcome, count]) => `${outcome} ${count}`)
    .join(', ');
}
