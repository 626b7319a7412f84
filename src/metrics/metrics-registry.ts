import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The one metrics registry of a paysync process. Components declare their own counters and
 * histograms beside their code with `registers: [metricsRegistry]`; `/metrics` serves it.
 */
export const metricsRegistry = new Registry();

let defaultsCollected = false;

/** Process metrics (CPU, memory, event loop); called once by long-running roles. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: metricsRegistry, prefix: 'paysync_' });
}
