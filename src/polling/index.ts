/**
 * Polling: list sweeps for missed webhooks (the whole sweep task, {@link runSweepTask}, is what
 * the daemon's `sweep` and `paysync sweep` both run), resumable backfills, and the janitor, which
 * re-polls non-terminal items on an escalating schedule and flags the ones stuck past their SLA.
 * Their runs are recorded by src/runs.
 */
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
  runSweepTask,
  SWEEP_PARTS,
  type SweepPart,
  type SweepTaskDependencies,
  type SweepTaskReport,
  type SweepTaskRequest,
} from './run-sweep-task.ts';
export {
  backfillStreamKey,
  runBackfill,
  type BackfillDependencies,
  type BackfillProgress,
  type BackfillReport,
  type BackfillRequest,
} from './run-backfill.ts';
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
