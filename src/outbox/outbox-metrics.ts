import { Counter } from 'prom-client';
import { metricsRegistry } from '../metrics/index.ts';

/** Outbox rows handed to the follow-up queue, by kind. */
export const outboxDispatchedTotal = new Counter({
  name: 'paysync_outbox_dispatched_total',
  help: 'Outbox rows handed to the follow-up queue, by kind',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

/** Dispatcher passes that Redis refused or did not answer: follow-ups waiting in the outbox. */
export const outboxDispatchFailuresTotal = new Counter({
  name: 'paysync_outbox_dispatch_failures_total',
  help: 'Outbox dispatch passes that failed (Redis refusing or away); the rows wait',
  registers: [metricsRegistry],
});
