import { Counter } from 'prom-client';
import { metricsRegistry } from './metrics-registry.ts';

/**
 * Requests answered 429 because their client address failed to authenticate too often
 * (the ops API, the dashboard's login and pages, bull-board, `/metrics`), by surface.
 */
export const authThrottled =
  (metricsRegistry.getSingleMetric('paysync_auth_throttled_total') as
    Counter<'surface'> | undefined) ??
  new Counter({
    name: 'paysync_auth_throttled_total',
    help: 'Requests refused with 429 after too many failed authentications from their client address, by surface',
    labelNames: ['surface'],
    registers: [metricsRegistry],
  });
