import type { Job } from 'bullmq';
import { runBalanceTask } from '../src/balances/index.ts';
import { recordScheduledRun } from '../src/polling/index.ts';
import { resolveSyncDependencies } from '../src/reconcile/index.ts';
import type { ScheduledJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';

/** `balances` (a scheduler tick): snapshot now, fill in missed end-of-day snapshots. */
export function balancesJob(context: JobContext) {
  return async (job: Job<ScheduledJobData>): Promise<string> => {
    const now = context.now;
    const recorded = await recordScheduledRun(
      {
        db: context.db,
        logger: context.logger,
        staleRunAfterMs: context.polling.staleRunAfterMs,
        now: context.now,
      },
      job.data,
      async (run) => {
        const result = await runBalanceTask(
          {
            db: context.db,
            upstream: context.upstream,
            logger: context.logger,
            environment: context.environment,
            lowBalance: context.balances.lowBalance,
            fetch: resolveSyncDependencies(context),
            now,
          },
          { timeZone: context.books.timeZone, now: now() },
        );
        const snapshots = [result.current, ...result.endOfDay.map((d) => d.outcome)];
        run.count({ itemsSeen: snapshots.length, upstreamCalls: snapshots.length });
        const unread = snapshots.find((s) => !s.ok);
        if (unread && !unread.ok) {
          throw new Error(`the service's balance could not be read: ${unread.problem}`);
        }
        run.checkpoint(
          `snapshot ${result.current.asOf}` +
            (result.endOfDay.length > 0
              ? `, end of day filled: ${result.endOfDay.map((d) => d.day).join(', ')}`
              : ''),
        );
        return result;
      },
    );
    return `${recorded.outcome}${recorded.error ? ` (${recorded.error})` : ''}`;
  };
}
