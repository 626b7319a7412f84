import type { Job } from 'bullmq';
import { ingestEvent } from '../src/ingest/index.ts';
import type { IngestJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';
import { consumerSpanOptions } from './traced-job.ts';
import { inSpan, traced } from '../src/tracing/index.ts';

/** `ingest`: classify one inbox row and enqueue the sync of the resource it names. */
export function ingestEventJob(context: JobContext) {
  return (job: Job<IngestJobData>): Promise<string> =>
    inSpan('paysync.ingest', consumerSpanOptions(context, 'ingest', job), async (span, ingest) => {
      const result = await ingestEvent(traced(context, ingest), job.data.inboxId, job.data.via);
      span.setAttribute('paysync.ingest.outcome', result.outcome);
      return result.outcome;
    });
}
