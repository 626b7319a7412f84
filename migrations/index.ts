import type { Migration } from 'kysely';
import * as m0001 from './0001_webhook_inbox.ts';
import * as m0002 from './0002_inbox_resource_and_service_state.ts';
import * as m0003 from './0003_ledger.ts';
import * as m0005 from './0005_polling.ts';
import * as m0006 from './0006_mirror_polls.ts';
import * as m0007 from './0007_balances.ts';
import * as m0008 from './0008_outbox_and_receipts.ts';
import * as m0009 from './0009_alerts.ts';
import * as m0010 from './0010_exports.ts';
import * as m0011 from './0011_retention.ts';
import * as m0012 from './0012_plan_indexes.ts';
import * as m0013 from './0013_audit_runs.ts';
import * as m0014 from './0014_ledger_day_totals.ts';
import * as m0015 from './0015_relay.ts';
import * as m0016 from './0016_inbox_indexes.ts';
import * as m0017 from './0017_refunds_kind_updated_at.ts';
import * as m0018 from './0018_expectations.ts';
import * as m0019 from './0019_relay_pending_age.ts';
import * as m0020 from './0020_scheduled_runs_task_outcome.ts';
import * as m0021 from './0021_inbox_resource_index.ts';
import * as m0022 from './0022_inbox_trace_id.ts';
import * as m0023 from './0023_relay_event_traceparent.ts';

/**
 * Every migration, in order. Listed statically (not read from the folder at run time) so
 * they load the same way under tsx, vitest and any bundler. Add new ones at the end; never
 * edit or remove one that has shipped.
 */
export const migrations: Record<string, Migration> = {
  '0001_webhook_inbox': m0001,
  '0002_inbox_resource_and_service_state': m0002,
  '0003_ledger': m0003,
  '0005_polling': m0005,
  '0006_mirror_polls': m0006,
  '0007_balances': m0007,
  '0008_outbox_and_receipts': m0008,
  '0009_alerts': m0009,
  '0010_exports': m0010,
  '0011_retention': m0011,
  '0012_plan_indexes': m0012,
  '0013_audit_runs': m0013,
  '0014_ledger_day_totals': m0014,
  '0015_relay': m0015,
  '0016_inbox_indexes': m0016,
  '0017_refunds_kind_updated_at': m0017,
  '0018_expectations': m0018,
  '0019_relay_pending_age': m0019,
  '0020_scheduled_runs_task_outcome': m0020,
  '0021_inbox_resource_index': m0021,
  '0022_inbox_trace_id': m0022,
  '0023_relay_event_traceparent': m0023,
};
