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

/**
 * Window reads by kind and what they came to: `complete` (every waiting item found), `capped`
 * (stopped at its page limit), `walked` (the window ended with items not in it), `too_few`
 * (per-item reads were cheaper), `failed` (the rest read one by one).
 */
export const windowReadsTotal = new Counter({
  name: 'paysync_window_reads_total',
  help: 'Window reads planned for waiting items, by kind and outcome (complete, capped, walked, too_few, failed)',
  labelNames: ['kind', 'outcome', 'tenant'] as const,
  registers: [metricsRegistry],
});

/** Pages the window reads asked for: one list request each (a short page's probe aside). */
export const windowReadPagesTotal = new Counter({
  name: 'paysync_window_read_pages_total',
  help: 'List pages read by window reads, by kind',
  labelNames: ['kind', 'tenant'] as const,
  registers: [metricsRegistry],
});
