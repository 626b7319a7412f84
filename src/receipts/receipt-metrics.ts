import { Counter } from 'prom-client';
import { metricsRegistry } from '../metrics/index.ts';

/**
 * Receipt fetches by outcome: archived (new or unchanged), retry_later, discrepancy. `tenant`:
 * set by a tenant's workers in a process serving several (docs/metrics.md).
 */
export const receiptFetchesTotal = new Counter({
  name: 'paysync_receipt_fetches_total',
  help: 'Receipt fetches by outcome (archived, unchanged, retry_later, not_found, unavailable)',
  labelNames: ['outcome', 'tenant'] as const,
  registers: [metricsRegistry],
});
