import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from '../metrics/index.ts';

// `tenant`: set by the client of a tenant in a process serving several (client-options.ts).

/** Calls to the service by operation and outcome (`ok` or an error code). */
export const upstreamRequestsTotal = new Counter({
  name: 'paysync_upstream_requests_total',
  help: 'HTTP attempts to the payment service, by operation and outcome',
  labelNames: ['operation', 'outcome', 'tenant'] as const,
  registers: [metricsRegistry],
});

/** Retries of reads (and of throttled writes), by the error that caused them. */
export const upstreamRetriesTotal = new Counter({
  name: 'paysync_upstream_retries_total',
  help: 'Retries of requests to the payment service, by operation and reason',
  labelNames: ['operation', 'reason', 'tenant'] as const,
  registers: [metricsRegistry],
});

/**
 * 429 answers, by operation: the service asking us to slow down. A steady rate means
 * `PAYSYNC_UPSTREAM_RPS` is above what the service grants.
 */
export const upstreamThrottlesTotal = new Counter({
  name: 'paysync_upstream_throttles_total',
  help: 'Requests the payment service refused with 429 (throttled), by operation',
  labelNames: ['operation', 'tenant'] as const,
  registers: [metricsRegistry],
});

export const upstreamRequestDuration = new Histogram({
  name: 'paysync_upstream_request_duration_seconds',
  help: 'Duration of one HTTP attempt to the payment service',
  labelNames: ['operation', 'tenant'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/**
 * Requests per second the budget hands out now: `PAYSYNC_UPSTREAM_RPS` unless the service's
 * 429s slowed it down (it climbs back each calm second).
 */
export const upstreamRateCurrent = new Gauge({
  name: 'paysync_upstream_rate_current',
  help: 'Requests per second the upstream budget hands out now (at most PAYSYNC_UPSTREAM_RPS; lower after 429s)',
  labelNames: ['tenant'] as const,
  registers: [metricsRegistry],
});

/** Requests waiting for the budget, by lane (`books` first, `receipts` behind them). */
export const upstreamLaneWaiting = new Gauge({
  name: 'paysync_upstream_waiting',
  help: 'Requests waiting for the upstream budget in this process, by lane (books, receipts)',
  labelNames: ['lane', 'tenant'] as const,
  registers: [metricsRegistry],
});
