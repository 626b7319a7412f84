/** Every kind of alert paysync raises. Other components raise theirs through `raiseAlert`. */
export const ALERT_KINDS = [
  'transfer_failed',
  'transfer_stuck',
  'balance_drift',
  'low_balance',
  'upstream_auth_failed',
  'signature_failures',
  'unclassified_events',
  'dead_jobs',
  'day_not_reconciled',
  'webhooks_silent',
  /** The receiver answers 503 to webhooks: the inbox backlog passed its limit. */
  'webhook_backlog_full',
  /** Something did not reconcile (a ledger discrepancy). */
  'discrepancy',
  /** An alert sink keeps failing; goes to the other sinks. */
  'sink_failing',
  /** A relay endpoint has failed every delivery for `PAYSYNC_RELAY_FAILING_ALERT_AFTER`. */
  'relay_endpoint_failing',
  /** A relay endpoint was disabled: it answered 410 Gone, or failed `PAYSYNC_RELAY_DISABLE_AFTER`. */
  'relay_endpoint_disabled',
  /** An expectation's window passed with nothing matched (issue 24, docs/expectations.md). */
  'expectation_overdue',
  /**
   * A tenant of a process serving several cannot start (its database down or not migrated):
   * sent to its own sinks without a record, since its books cannot be opened (docs/tenants.md).
   */
  'tenant_unavailable',
  /**
   * The database refuses writes (a full disk, read-only, a revoked privilege): sent once per
   * outage without a record, since that database cannot hold it (docs/operations.md).
   */
  'database_unwritable',
  /** `paysync alerts test`. */
  'test',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The severity a kind gets when its raiser does not say. */
export const DEFAULT_SEVERITY: Readonly<Record<AlertKind, Severity>> = {
  transfer_failed: 'warning',
  transfer_stuck: 'critical',
  balance_drift: 'critical',
  low_balance: 'critical',
  upstream_auth_failed: 'critical',
  signature_failures: 'critical',
  unclassified_events: 'warning',
  dead_jobs: 'critical',
  day_not_reconciled: 'critical',
  webhooks_silent: 'critical',
  webhook_backlog_full: 'critical',
  discrepancy: 'warning',
  sink_failing: 'critical',
  relay_endpoint_failing: 'warning',
  relay_endpoint_disabled: 'critical',
  expectation_overdue: 'warning',
  tenant_unavailable: 'critical',
  database_unwritable: 'critical',
  test: 'info',
};

/** How a digest names a burst: `37 transfers failed`, `12 transfer_stuck alerts`. */
export function burstPhrase(kind: string, count: number): string {
  if (kind === 'transfer_failed')
    return `${count} ${count === 1 ? 'transfer' : 'transfers'} failed`;
  if (kind === 'transfer_stuck') return `${count} ${count === 1 ? 'transfer' : 'transfers'} stuck`;
  if (kind === 'expectation_overdue')
    return `${count} ${count === 1 ? 'expectation' : 'expectations'} overdue`;
  return `${count} ${kind} ${count === 1 ? 'alert' : 'alerts'}`;
}

export function isAlertKind(value: string): value is AlertKind {
  return (ALERT_KINDS as readonly string[]).includes(value);
}
