import type { Job } from 'bullmq';
import { reasonOf } from '../src/error-reason.ts';
import {
  discoverPaymentRefunds,
  discoverRefunds,
  recordScheduledRun,
  runSweep,
} from '../src/polling/index.ts';
import type { ScheduledJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';

/**
 * `sweep` (a scheduler tick): list recent payment intents and transfers, apply what was missed;
 * then list the refunds and queue a sync of each one no webhook announced, and ask about the
 * payment-refund ids in the gaps of those paysync knows (there is no list of payment refunds).
 */
export function sweepJob(context: JobContext) {
  return async (job: Job<ScheduledJobData>): Promise<string> => {
    const recorded = await recordScheduledRun(
      {
        db: context.db,
        logger: context.logger,
        staleRunAfterMs: context.polling.staleRunAfterMs,
        now: context.now,
      },
      job.data,
      async (run) => {
        const deps = {
          db: context.db,
          upstream: context.upstream,
          queues: context.queues,
          logger: context.logger,
          environment: context.environment,
          now: context.now,
        };
        const reports = await runSweep(
          deps,
          { sweepOverlapMs: context.polling.sweepOverlapMs, perPage: context.polling.perPage },
          run,
        );
        try {
          const refunds = await discoverRefunds(deps);
          run.count({ itemsSeen: refunds.listed });
          if (refunds.unreadable) run.cutShort('GET /refunds held no list of refunds');
        } catch (error) {
          run.cutShort(`refund list: ${reasonOf(error)}`);
        }
        try {
          const probe = await discoverPaymentRefunds(deps, {
            budget: context.polling.paymentRefundProbes,
          });
          run.count({ itemsSeen: probe.found });
          if (probe.stoppedBy) run.cutShort(`payment-refund probe: ${probe.stoppedBy}`);
        } catch (error) {
          run.cutShort(`payment-refund probe: ${reasonOf(error)}`);
        }
        return reports;
      },
    );
    const { itemsSeen, itemsChanged, itemsMissed } = recorded.counts;
    return `${recorded.outcome}: ${itemsSeen} seen, ${itemsChanged} changed, ${itemsMissed} missed by webhooks${recorded.error ? ` (${recorded.error})` : ''}`;
  };
}
