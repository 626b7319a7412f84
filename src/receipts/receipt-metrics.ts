import { Counter } from 'prom-client';
import { metricsRegistry } from '../metrics/index.ts';

/** Receipt fetches by outcome: archived (new or unchanged), retry_later, discrepancy. */
export const receiptFetchesTotal = new Counter({
  name: 'paysync_receipt_fetches_total',
  help: 'Receipt fetches by outcome (archived, unchanged, retry_later, not_found, unavailable)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});
