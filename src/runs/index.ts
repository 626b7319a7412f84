/**
 * Scheduled runs: the record every run of a scheduled task leaves in `scheduled_runs` (the one
 * owner of that table), what `paysync runs`, `doctor`, the ops API and `/metrics` read from it,
 * and the health of each task. Scheduled work of any component runs under
 * {@link recordScheduledRun}; the scheduled jobs reach it through one helper
 * (`jobs/scheduled-job.ts`). See docs/processing.md, "Run records".
 */
export {
  DEFAULT_STALE_RUN_AFTER_MS,
  recordScheduledRun,
  type RecordedRun,
  type RunHandle,
  type RunIdentity,
  type RunRecordDependencies,
} from './record-scheduled-run.ts';
export {
  lastSuccessByTask,
  missedWebhooksSince,
  recentRuns,
  type RecentRunsQuery,
  type RunCounts,
  type ScheduledRun,
} from './scheduled-run.repository.ts';
export {
  pruneScheduledRuns,
  RUN_RECORDS_RETENTION,
  scheduledRunsPrunable,
} from './run-retention.ts';
export type { RunOutcome, RunTrigger, ScheduledRunTable } from './scheduled-run.table.ts';
export { nextTick } from './next-tick.ts';
export {
  cronIntervalMs,
  MISSED_INTERVALS_ALLOWED,
  taskHealth,
  type ScheduledTaskSpec,
  type TaskHealth,
} from './task-health.ts';
