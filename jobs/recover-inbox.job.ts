import type { Job } from 'bullmq';
import type { ScheduledJobData } from '../src/queues/index.ts';
import { runRecoverySweep } from '../src/reconcile/index.ts';
import type { JobContext } from './job-context.ts';

/** `recover-inbox` (a scheduler tick): enqueue inbox rows that sat unprocessed. */
export function recoverInboxJob(context: JobContext) {
  return async (_job: Job<ScheduledJobData>): Promise<string> => {
    const result = await runRecoverySweep({
      db: context.db,
      queues: context.queues,
      logger: context.logger,
      olderThanMs: context.recoveryAfterMs,
      ...(context.now ? { now: context.now } : {}),
    });
    return `found ${result.found}, enqueued ${result.enqueued}, retried ${result.retried}`;
  };
}
