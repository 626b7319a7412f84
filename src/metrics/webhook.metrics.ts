import { Counter } from 'prom-client';
import { metricsRegistry } from './metrics-registry.ts';

function counter<T extends string>(name: string, help: string, labelNames: readonly T[]) {
  // A module loaded twice (tests, tsx reloads) must not register the metric twice.
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Counter<T>;
  return new Counter<T>({ name, help, labelNames, registers: [metricsRegistry] });
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
