import { runSweepTask } from '../src/polling/index.ts';
import type { JobContext } from './job-context.ts';
import { scheduledJob } from './scheduled-job.ts';

/**
 * `sweep` (a scheduler tick): the sweep task of src/polling, the same one `paysync sweep` runs
 * (the intent and transfer lists, the refund list, the payment-refund probe).
 */
export function sweepJob(context: JobContext) {
  return scheduledJob(
    context,
    (run, context) =>
      runSweepTask(
        {
          db: context.db,
          upstream: context.upstream,
          queues: context.queues,
          logger: context.logger,
          environment: context.environment,
          ...(context.expectations ? { allExpected: context.expectations.allExpected } : {}),
          now: context.now,
          trace: context.trace,
          ...(context.metrics ? { metrics: context.metrics } : {}),
        },
        {
          sweepOverlapMs: context.polling.sweepOverlapMs,
          perPage: context.polling.perPage,
          paymentRefundProbes: context.polling.paymentRefundProbes,
        },
        run,
      ),
    (recorded) => {
      const { itemsSeen, itemsChanged, itemsMissed } = recorded.counts;
      return `${recorded.outcome}: ${itemsSeen} seen, ${itemsChanged} changed, ${itemsMissed} missed by webhooks${recorded.error ? ` (${recorded.error})` : ''}`;
    },
  );
}
