import { Counter } from 'prom-client';
import { metricsRegistry } from '../metrics/index.ts';

/** Every sync attempt by resource kind and outcome (synced, linked, skipped, retry, gave_up, stop). */
export const syncAttemptsTotal = new Counter({
  name: 'paysync_sync_attempts_total',
  help: 'Sync attempts of one resource, by kind and outcome',
  labelNames: ['kind', 'outcome'] as const,
  registers: [metricsRegistry],
});

/** Inbox rows the recovery sweep enqueued again. */
export const inboxRecoveredTotal = new Counter({
  name: 'paysync_inbox_recovered_total',
  help: 'Inbox rows the recovery sweep enqueued again after they sat unprocessed',
  registers: [metricsRegistry],
});
