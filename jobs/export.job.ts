import type { Job } from 'bullmq';
import { runDailyExport } from '../src/exports/index.ts';
import type { ScheduledJobData } from '../src/queues/index.ts';
import { dayOf, previousDay } from '../src/books-calendar/index.ts';
import type { JobContext } from './job-context.ts';
import { inTickSpan } from './scheduled-job.ts';

/** `export` (a scheduler tick, daily by default): yesterday's books to the export folder. */
export function exportJob(context: JobContext) {
  return (job: Job<ScheduledJobData>): Promise<string> =>
    inTickSpan(context, job, () => writeExport(context));
}

async function writeExport(context: JobContext): Promise<string> {
  const settings = context.exports;
  if (!settings) return 'exports are not configured for this worker';
  const now = context.now();
  const day = previousDay(dayOf(now, settings.timeZone));
  const entry = await runDailyExport({
    db: context.db,
    environment: settings.environment,
    timeZone: settings.timeZone,
    formats: settings.formats,
    dir: settings.dir,
    day,
    now,
  });
  return `${day}: ${entry.files.map((f) => `${f.file} ${f.rows} lines${f.rewritten ? '' : ' (unchanged)'}`).join(', ')}`;
}
