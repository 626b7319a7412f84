import { cronOrOff, durationOrOff, positiveInt, type Parsed } from './fields.ts';

// Retention of the tables that grow with traffic (docs/retention.md). Ledger journals and lines
// are never pruned, and have no variable here.

export const RETENTION_VARIABLES = {
  /** When the retention task prunes (cron), or `off`. @defaultValue `23 * * * *` (hourly) */
  PAYSYNC_RETENTION_CRON: cronOrOff('23 * * * *', 'hourly, at minute 23'),
  /** Rows one pruning statement touches at most. @defaultValue 500 */
  PAYSYNC_RETENTION_BATCH: positiveInt(500, 10_000),
  /** A processed inbox row loses its raw body and headers this long after it was processed. @defaultValue `30d` */
  PAYSYNC_RETENTION_INBOX_BODY_AFTER: durationOrOff('30d'),
  /** A consumed outbox row is deleted this long after it was consumed. @defaultValue `30d` */
  PAYSYNC_RETENTION_OUTBOX_AFTER: durationOrOff('30d'),
  /** A finished run record is deleted this long after it started. @defaultValue `90d` */
  PAYSYNC_RETENTION_RUNS_AFTER: durationOrOff('90d'),
  /** A delivered (or given-up) alert message is deleted this long after it was created. @defaultValue `90d` */
  PAYSYNC_RETENTION_ALERT_DELIVERIES_AFTER: durationOrOff('90d'),
  /**
   * The relay's delivery log, finished deliveries and events no delivery needs are deleted
   * this long after they were attempted, finished or created. @defaultValue `30d`
   */
  PAYSYNC_RETENTION_RELAY_AFTER: durationOrOff('30d'),
};

/** How long each pruned table keeps its rows, in ms; undefined keeps them for ever (`off`). */
export interface RetentionPeriods {
  /** @defaultValue 30 days */
  readonly inboxBodies: number | undefined;
  /** @defaultValue 30 days */
  readonly outbox: number | undefined;
  /** @defaultValue 90 days */
  readonly scheduledRuns: number | undefined;
  /** @defaultValue 90 days */
  readonly alertDeliveries: number | undefined;
  /** @defaultValue 30 days */
  readonly relay: number | undefined;
}

export interface RetentionSettings {
  /** @defaultValue `23 * * * *`; `off` turns the scheduled task off (`paysync prune` still works) */
  readonly cron: string;
  /** @defaultValue 500 (docs/retention.md: under 100 ms a batch on 100k-row tables) */
  readonly batchSize: number;
  readonly periods: RetentionPeriods;
}

export function retentionSettings(e: Parsed<typeof RETENTION_VARIABLES>): RetentionSettings {
  return Object.freeze({
    cron: e.PAYSYNC_RETENTION_CRON,
    batchSize: e.PAYSYNC_RETENTION_BATCH,
    periods: Object.freeze({
      inboxBodies: e.PAYSYNC_RETENTION_INBOX_BODY_AFTER,
      outbox: e.PAYSYNC_RETENTION_OUTBOX_AFTER,
      scheduledRuns: e.PAYSYNC_RETENTION_RUNS_AFTER,
      alertDeliveries: e.PAYSYNC_RETENTION_ALERT_DELIVERIES_AFTER,
      relay: e.PAYSYNC_RETENTION_RELAY_AFTER,
    }),
  });
}
