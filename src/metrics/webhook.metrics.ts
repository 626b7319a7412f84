import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from './metrics-registry.ts';
import { tenantOnlyMetric } from './tenant-metrics.ts';

// Every series here also has a `tenant` label, set by a tenant's receiver in a process serving
// several (TenantMetrics, tenant-metrics.ts); a process of one tenant leaves it out.

function counter<T extends string>(name: string, help: string, labelNames: readonly T[]) {
  // A module loaded twice (tests, tsx reloads) must not register the metric twice.
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Counter<T | 'tenant'>;
  return new Counter<T | 'tenant'>({
    name,
    help,
    labelNames: [...labelNames, 'tenant'],
    registers: [metricsRegistry],
  });
}

function gauge(name: string, help: string) {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Gauge<'tenant'>;
  return tenantOnlyMetric(
    new Gauge<'tenant'>({ name, help, labelNames: ['tenant'], registers: [metricsRegistry] }),
  );
}

/**
 * The webhook counters. The receiver counts; the ops dashboard reads them. They live here, below
 * both doors, so that neither door imports the other (docs/architecture.md).
 */

/** Refused webhooks, by the receiver's signature failure reason. */
export const signatureFailures = counter(
  'paysync_webhook_signature_failures_total',
  'Webhooks refused with 401, by reason',
  ['reason'],
);

/** Every answer of the webhook route, by outcome (accepted, duplicate, or the error code). */
export const webhookOutcomes = counter(
  'paysync_webhook_requests_total',
  'Webhook requests by outcome',
  ['outcome'],
);

/**
 * Webhooks refused with 503 before their body was read because the receiver was at capacity,
 * by reason: `backlog_full` (PAYSYNC_RECEIVER_MAX_BACKLOG) or `too_many_in_flight`
 * (PAYSYNC_RECEIVER_MAX_IN_FLIGHT).
 */
export const webhookBackpressure = counter(
  'paysync_webhook_backpressure_total',
  'Webhooks refused with 503 because the receiver was at capacity, by reason',
  ['reason'],
);

/**
 * Open inbox rows (stored, not yet processed) as the receiver last counted them; the count
 * stops at PAYSYNC_RECEIVER_MAX_BACKLOG, so the gauge never reads more.
 */
export const webhookBacklog = gauge(
  'paysync_webhook_backlog',
  'Open inbox rows as the receiver last counted them (counted up to PAYSYNC_RECEIVER_MAX_BACKLOG)',
);

/** Webhook requests being handled now (PAYSYNC_RECEIVER_MAX_IN_FLIGHT caps them). */
export const webhookInFlight = gauge(
  'paysync_webhook_in_flight',
  'Webhook requests being handled now',
);
