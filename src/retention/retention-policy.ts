import { ALERT_DELIVERIES_RETENTION } from '../alerts/index.ts';
import { AUDIT_RUNS_RETENTION } from '../audit/index.ts';
import type { RetentionPeriods } from '../config/index.ts';
import type { PrunableTable } from '../db/index.ts';
import { INBOX_BODIES_RETENTION } from '../inbox/index.ts';
import { OUTBOX_RETENTION } from '../outbox/index.ts';
import { RUN_RECORDS_RETENTION } from '../runs/index.ts';
import { RELAY_RETENTION_TARGETS } from './relay-retention-targets.ts';

/**
 * One table that grows with traffic and what retention does to it. The statements live in the
 * table's owner (its index.ts); this list only says which, how long, and in whose words.
 */
export interface RetentionTarget extends PrunableTable {
  /** What pruning does to a row: `body` (the raw body goes, the row stays) or `row`. */
  readonly removes: 'body' | 'row';
  /** Which setting holds its period. */
  readonly period: keyof RetentionPeriods;
  readonly variable: string;
  /** What may go, in one line (`paysync prune --help`, docs/retention.md). */
  readonly rule: string;
}

/**
 * Every table retention prunes, in the order it prunes them. Not here, on purpose
 * (docs/retention.md, "Never pruned"): journals and journal lines, the mirror rows, status
 * history, discrepancies, balance snapshots, verdicts, receipts, alerts and closed periods.
 */
export const RETENTION_POLICY: readonly RetentionTarget[] = [
  {
    ...INBOX_BODIES_RETENTION,
    removes: 'body',
    period: 'inboxBodies',
    variable: 'PAYSYNC_RETENTION_INBOX_BODY_AFTER',
    rule: 'processed rows lose their raw body and headers; the row, its dedupe key and outcome stay',
  },
  {
    ...OUTBOX_RETENTION,
    removes: 'row',
    period: 'outbox',
    variable: 'PAYSYNC_RETENTION_OUTBOX_AFTER',
    rule: 'consumed rows are deleted; rows waiting or in flight never are',
  },
  {
    ...RUN_RECORDS_RETENTION,
    removes: 'row',
    period: 'scheduledRuns',
    variable: 'PAYSYNC_RETENTION_RUNS_AFTER',
    rule: "finished runs are deleted, except each task's latest run, its latest success, and a never-successful task's first run",
  },
  {
    ...ALERT_DELIVERIES_RETENTION,
    removes: 'row',
    period: 'alertDeliveries',
    variable: 'PAYSYNC_RETENTION_ALERT_DELIVERIES_AFTER',
    rule: 'delivered or given-up messages are deleted; pending ones and retries never are',
  },
  {
    ...AUDIT_RUNS_RETENTION,
    removes: 'row',
    // Run records too: the clean audits' watermarks, one per clean `paysync audit`.
    period: 'scheduledRuns',
    variable: 'PAYSYNC_RETENTION_RUNS_AFTER',
    rule: 'clean-audit records are deleted, except the latest (the next `--since last-clean` starts there)',
  },
  ...RELAY_RETENTION_TARGETS,
];
