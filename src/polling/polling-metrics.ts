import { Counter } from 'prom-client';
import { metricsRegistry } from '../metrics/index.ts';

/**
 * Items first learned from a sweep that no webhook ever named: the service's webhook
 * reliability as this merchant sees it. `tenant`: set by a tenant's sweeps in a process serving
 * several (docs/metrics.md).
 */
export const missedWebhooksTotal = new Counter({
  name: 'paysync_missed_webhooks_total',
  help: 'Items first learned from a list sweep, never named by a webhook, by kind',
  labelNames: ['kind', 'tenant'] as const,
  registers: [metricsRegistry],
});
