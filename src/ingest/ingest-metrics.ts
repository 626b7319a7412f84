import { Counter } from 'prom-client';
import { metricsRegistry } from '../metrics/index.ts';

/** Events the classifier could not read: each one is an inbox row marked `unclassified`. */
export const unclassifiedEventsTotal = new Counter({
  name: 'paysync_inbox_unclassified_total',
  help: 'Webhook events paysync could not classify (marked unclassified, not retried)',
  registers: [metricsRegistry],
});

/** Events classified, by resource kind (or `ignored`). */
export const classifiedEventsTotal = new Counter({
  name: 'paysync_inbox_classified_total',
  help: 'Webhook events classified (by the receiver at intake or by the ingest job), by resource kind',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});
