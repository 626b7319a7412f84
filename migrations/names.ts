/**
 * The name of every migration, in order: the keys of `migrations` in index.ts, kept here as
 * plain strings so a read command can check for pending migrations without loading the
 * migration modules (issue 39). test/foundation/migration-names.test.ts checks that this list,
 * index.ts and the files of this folder agree; add a new migration to all three.
 */
export const MIGRATION_NAMES: readonly string[] = [
  '0001_webhook_inbox',
  '0002_inbox_resource_and_service_state',
  '0003_ledger',
  '0005_polling',
  '0006_mirror_polls',
  '0007_balances',
  '0008_outbox_and_receipts',
  '0009_alerts',
  '0010_exports',
  '0011_retention',
  '0012_plan_indexes',
  '0013_audit_runs',
  '0014_ledger_day_totals',
  '0015_relay',
  '0016_inbox_indexes',
  '0017_refunds_kind_updated_at',
  '0018_expectations',
  '0019_relay_pending_age',
  '0020_scheduled_runs_task_outcome',
  '0021_inbox_resource_index',
  '0022_inbox_trace_id',
  '0023_relay_event_traceparent',
];
