import { runRecoverySweep } from '../src/reconcile/index.ts';
import type { JobContext } from './job-context.ts';
import { scheduledJob } from './scheduled-job.ts';

/** `recover-inbox` (a scheduler tick): enqueue inbox rows that sat unprocessed. */
export function recoverInboxJob(context: JobContext) {
  return scheduledJob(
    context,
    async (run, context) => {
      const result = await runRecoverySweep({
        db: context.db,
        queues: context.queues,
        logger: context.logger,
        olderThanMs: context.recoveryAfterMs,
        now: context.now,
        ...(context.metrics ? { metrics: context.metrics } : {}),
      });
      run.count({ itemsSeen: result.found, itemsChanged: result.enqueued + result.retried });
      return result;
    },
    (recorded) => {
      if (!recorded.value) return recorded.error ?? recorded.outcome;
      const { found, enqueued, retried } = recorded.value;
      return `found ${found}, enqueued ${enqueued}, retried ${retried}`;
    },
  );
}
