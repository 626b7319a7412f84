import { prunableTable, type PrunableTable } from '../db/index.ts';

/*
 * Retention of alert deliveries (docs/retention.md): a message delivered, or given up for good
 * (failed with no next try), long ago goes; one still pending or due a retry never does. The
 * alerts themselves stay: they are few, and `paysync alerts` is their history.
 */

/** The finished alert deliveries, by `created_at`: deleted. */
export const ALERT_DELIVERIES_RETENTION: PrunableTable = prunableTable({
  table: 'alert_deliveries',
  timeColumn: 'created_at',
  condition: (eb) =>
    eb.or([
      eb('status', '=', 'delivered'),
      eb.and([eb('status', '=', 'failed'), eb('next_attempt_at', 'is', null)]),
    ]),
});

/** Finished deliveries created before `before`. */
export const alertDeliveriesPrunable = ALERT_DELIVERIES_RETENTION.prunable;

/** Deletes at most `limit` of them, oldest first, by id. Returns the rows deleted. */
export const pruneAlertDeliveries = ALERT_DELIVERIES_RETENTION.prune;
