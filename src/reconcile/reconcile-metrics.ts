import { Counter } from 'prom-client';
import { metricsRegistry, tenantOnlyMetric } from '../metrics/index.ts';

// `tenant`: set by a tenant's workers in a process serving several (docs/metrics.md).

/** Every sync attempt by resource kind and outcome (synced, linked, skipped, retry, gave_up, stop). */
export const syncAttemptsTotal = new Counter({
  name: 'paysync_sync_attempts_total',
  help: 'Sync attempts of one resource, by kind and outcome',
  labelNames: ['kind', 'outcome', 'tenant'] as const,
  registers: [metricsRegistry],
});

/** Inbox rows the recovery sweep enqueued again. */
export const inboxRecoveredTotal = tenantOnlyMetric(
  new Counter({
    name: 'paysync_inbox_recovered_total',
    help: 'Inbox rows the recovery sweep enqueued again after they sat unprocessed',
    labelNames: ['tenant'] as const,
    registers: [metricsRegistry],
  }),
);
