import { markOverdue } from '../src/expectations/index.ts';
import type { JobContext } from './job-context.ts';
import { scheduledJob } from './scheduled-job.ts';

/**
 * `expectations` (a scheduler tick): open expectations whose window has passed are matched once
 * more and, when nothing pays them, become `overdue` with a `missing` break.
 */
export function expectationsJob(context: JobContext) {
  return scheduledJob(context, async (run, context) => {
    const check = await markOverdue(context.db, context.now().toISOString(), {
      environment: context.environment,
      allExpected: context.expectations?.allExpected ?? 'off',
    });
    run.count({ itemsSeen: check.checked, itemsChanged: check.overdue });
    run.checkpoint(`checked ${check.checked} past their window; ${check.overdue} overdue`);
    return check;
  });
}
