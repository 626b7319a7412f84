import { Counter, Gauge, Histogram } from 'prom-client';
import type { Executor } from '../db/index.ts';
import { metricsRegistry, soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';

// The relay's series (docs/metrics.md, docs/relay.md "Metrics"). A module loaded twice
// (tests, tsx reloads) must not register a series twice. `tenant`: set through the metrics
// handle of a tenant's deliverer in a process serving several.

function existing<T>(name: string): T | undefined {
  return metricsRegistry.getSingleMetric(name) as T | undefined;
}

/**
 * Attempts by endpoint (`ep_…`) and outcome: `delivered`, `failed` (an answer not 2xx),
 * `timeout`, `error` (no answer, or refused by the SSRF guard), `gone` (410); a delivery that
 * gives up counts once more as `gave_up`.
 */
export const relayDeliveriesTotal =
  existing<Counter<'endpoint' | 'outcome' | 'tenant'>>('paysync_relay_deliveries_total') ??
  new Counter({
    name: 'paysync_relay_deliveries_total',
    help: 'Relay delivery attempts by endpoint and outcome (delivered, failed, timeout, error, gone), and deliveries given up (gave_up)',
    labelNames: ['endpoint', 'outcome', 'tenant'] as const,
    registers: [metricsRegistry],
  });

/** One POST, from connecting to the end of the answer (or the timeout). */
export const relayAttemptSeconds =
  existing<Histogram<'endpoint' | 'tenant'>>('paysync_relay_attempt_duration_seconds') ??
  new Histogram({
    name: 'paysync_relay_attempt_duration_seconds',
    help: 'Duration of one relay delivery attempt, by endpoint',
    labelNames: ['endpoint', 'tenant'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    registers: [metricsRegistry],
  });

/** Age of the oldest pending (not yet delivered, not given up) delivery per endpoint; 0 when none. */
export const relayOldestPendingSeconds =
  existing<Gauge<'endpoint' | 'tenant'>>('paysync_relay_oldest_pending_age_seconds') ??
  new Gauge({
    name: 'paysync_relay_oldest_pending_age_seconds',
    help: 'Age in seconds of the oldest undelivered event per endpoint (0 when none waits)',
    labelNames: ['endpoint', 'tenant'] as const,
    registers: [metricsRegistry],
  });

/**
 * Reads the oldest pending delivery of each endpoint and sets the gauge: per endpoint, a walk
 * of `relay_deliveries_pending_age` (created_at, pending deliveries only) from the oldest until
 * one of that endpoint; delivered ones are not in that index, so the cost does not grow with
 * the delivery log (migration 0019). Through a tenant's `metrics` handle (a process serving
 * several), only that tenant's series are replaced: the other tenants' deliverers keep theirs.
 */
export async function refreshOldestPending(
  db: Executor,
  now: Date,
  metrics: TenantMetrics = soleTenantMetrics,
): Promise<void> {
  const rows = await db
    .selectFrom('relay_endpoints as e')
    .select((eb) => [
      'e.endpoint_id',
      eb
        .selectFrom('relay_deliveries as d')
        .select((inner) => inner.fn.min<string>('d.created_at').as('oldest'))
        .whereRef('d.endpoint_id', '=', 'e.id')
        .where('d.state', '=', 'pending')
        .as('oldest'),
    ])
    .execute();
  await metrics.clear(relayOldestPendingSeconds);
  for (const row of rows) {
    const oldest = row.oldest as string | null;
    const age = oldest ? Math.max(0, (now.getTime() - Date.parse(oldest)) / 1000) : 0;
    metrics.set(relayOldestPendingSeconds, { endpoint: row.endpoint_id }, age);
  }
}
