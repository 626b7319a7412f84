import { Counter } from 'prom-client';
import { metricsRegistry, tenantOnlyMetric } from '../metrics/index.ts';

// `tenant`: set by a tenant's receiver and workers in a process serving several (docs/metrics.md).

/** Events the classifier could not read: each one is an inbox row marked `unclassified`. */
export const unclassifiedEventsTotal = tenantOnlyMetric(
  new Counter({
    name: 'paysync_inbox_unclassified_total',
    help: 'Webhook events paysync could not classify (marked unclassified, not retried)',
    labelNames: ['tenant'] as const,
    registers: [metricsRegistry],
  }),
);

/** Events classified, by resource kind (or `ignored`). */
export const classifiedEventsTotal = new Counter({
  name: 'paysync_inbox_classified_total',
  help: 'Webhook events classified (by the receiver at intake or by the ingest job), by resource kind',
  labelNames: ['kind', 'tenant'] as const,
  registers: [metricsRegistry],
});
