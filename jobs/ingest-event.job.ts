import type { Job } from 'bullmq';
import { ingestEvent } from '../src/ingest/index.ts';
import type { IngestJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';

/** `ingest`: classify one inbox row and enqueue the sync of the resource it names. */
export function ingestEventJob(context: JobContext) {
  return async (job: Job<IngestJobData>): Promise<string> => {
    const result = await ingestEvent(context, job.data.inboxId, job.data.via);
    return result.outcome;
  };
}
