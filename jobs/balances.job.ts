import { runBalanceTask } from '../src/balances/index.ts';
import { resolveSyncDependencies } from '../src/reconcile/index.ts';
import type { JobContext } from './job-context.ts';
import { scheduledJob } from './scheduled-job.ts';

/** `balances` (a scheduler tick): snapshot now, fill in missed end-of-day snapshots. */
export function balancesJob(context: JobContext) {
  const now = context.now;
  return scheduledJob(context, async (run, context) => {
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
      { timeZone: context.books.timeZone },
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
  });
}
