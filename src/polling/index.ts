/**
 * Polling: list sweeps for missed webhooks, resumable backfills, and the record every
 * scheduled run leaves in `scheduled_runs`. Scheduled work of any component wraps itself in
 * {@link recordScheduledRun}; the janitor re-polls non-terminal items on an escalating
 * schedule and flags the ones stuck past their SLA.
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
export type { RunOutcome, RunTrigger, ScheduledRunTable } from './scheduled-run.table.ts';
export type { PollingCheckpointTable } from './checkpoint.table.ts';
export { readCheckpoint, type PollingCheckpoint } from './checkpoint.repository.ts';
export { SWEEP_KINDS, type SweepKind } from './list-streams.ts';
export type { PageTally } from './page-tally.ts';
export { missedWebhooksTotal } from './polling-metrics.ts';
export {
  DEFAULT_POLLING_OPTIONS,
  resolvePollingOptions,
  type PollingOptions,
} from './polling-options.ts';
export {
  runSweep,
  sweepStreamKey,
  type StreamSweepReport,
  type SweepDependencies,
  type SweepRequest,
} from './run-sweep.ts';
export {
  backfillStreamKey,
  runBackfill,
  type BackfillDependencies,
  type BackfillProgress,
  type BackfillReport,
  type BackfillRequest,
} from './run-backfill.ts';
export {
  cronIntervalMs,
  MISSED_INTERVALS_ALLOWED,
  taskHealth,
  type ScheduledTaskSpec,
  type TaskHealth,
} from './task-health.ts';
export { pollPlanOf, runJanitor, type JanitorCounts, type JanitorDependencies } from './janitor.ts';
export { formatAge, stuckRules } from './stuck-items.ts';
export { sweepCoverage } from './sweep-coverage.ts';
export {
  DEFAULT_PAYMENT_REFUND_PROBES,
  discoverPaymentRefunds,
  paymentRefundProbeStream,
  type PaymentRefundProbe,
  type PaymentRefundProbeDependencies,
  type PaymentRefundProbeOptions,
} from './discover-payment-refunds.ts';
export {
  discoverRefunds,
  refundIdsOf,
  type RefundDiscovery,
  type RefundDiscoveryDependencies,
} from './discover-refunds.ts';
