import { Counter } from 'prom-client';
import { metricsRegistry, tenantOnlyMetric } from '../metrics/index.ts';

// `tenant`: set by a tenant's dispatcher in a process serving several (docs/metrics.md).

/** Outbox rows handed to the follow-up queue, by kind. */
export const outboxDispatchedTotal = new Counter({
  name: 'paysync_outbox_dispatched_total',
  help: 'Outbox rows handed to the follow-up queue, by kind',
  labelNames: ['kind', 'tenant'] as const,
  registers: [metricsRegistry],
});

/** Dispatcher passes that Redis refused or did not answer: follow-ups waiting in the outbox. */
export const outboxDispatchFailuresTotal = tenantOnlyMetric(
  new Counter({
    name: 'paysync_outbox_dispatch_failures_total',
    help: 'Outbox dispatch passes that failed (Redis refusing or away); the rows wait',
    labelNames: ['tenant'] as const,
    registers: [metricsRegistry],
  }),
);
