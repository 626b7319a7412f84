import { sweepCoverage } from '../src/polling/index.ts';
import { judgeClosedDays, pendingSlaOf } from '../src/reports/index.ts';
import type { JobContext } from './job-context.ts';
import { scheduledJob } from './scheduled-job.ts';

/** `verdicts` (a scheduler tick): judge and store each closed day whose snapshot is in. */
export function verdictsJob(context: JobContext) {
  return scheduledJob(context, async (run, context) => {
    const judged = await judgeClosedDays({
      db: context.db,
      environment: context.environment,
      timeZone: context.books.timeZone,
      sla: pendingSlaOf(context.janitor.stuckAfterMs),
      coverage: sweepCoverage(context.db, context.environment),
      ...(context.expectationBreakVerdict
        ? { expectationBreakVerdict: context.expectationBreakVerdict }
        : {}),
      now: context.now,
    });
    run.count({
      itemsSeen: judged.length,
      itemsChanged: judged.filter((j) => j.verdict !== j.previous).length,
    });
    run.checkpoint(judged.map((j) => `${j.day} ${j.verdict}`).join(', ') || 'no day to judge');
    return judged;
  });
}
