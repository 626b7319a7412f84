import type { Job } from 'bullmq';
import type { ScheduledJobData } from '../src/queues/index.ts';
import { recordScheduledRun, type RecordedRun, type RunHandle } from '../src/runs/index.ts';
import type { JobContext } from './job-context.ts';

/** The job's result line when a task says nothing of its own: the outcome, and why if not clean. */
function outcomeLine(recorded: RecordedRun<unknown>): string {
  return `${recorded.outcome}${recorded.error ? ` (${recorded.error})` : ''}`;
}

/**
 * The processor of a scheduled task: its tick (task and slot) runs `work` under a run record
 * (src/runs), so every scheduled job leaves a row in `scheduled_runs` the same way. `summary`
 * turns the recorded run into the job's result line. @defaultValue the outcome and its reason
 */
export function scheduledJob<T>(
  context: JobContext,
  work: (run: RunHandle) => Promise<T>,
  summary: (recorded: RecordedRun<T>) => string = outcomeLine,
): (job: Job<ScheduledJobData>) => Promise<string> {
  return async (job) => {
    const recorded = await recordScheduledRun(
      {
        db: context.db,
        logger: context.logger,
        staleRunAfterMs: context.polling.staleRunAfterMs,
        now: context.now,
      },
      job.data,
      work,
    );
    return summary(recorded);
  };
}
