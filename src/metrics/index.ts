/**
 * Metrics: the process's Prometheus registry, the job and scrape-time collectors, and the small
 * `/metrics`, `/healthz`, `/readyz` server of processes without a receiver, and the one mount of
 * those three routes that every port uses (mountHealthRoutes), and each tenant's one metrics
 * handle (tenantMetrics), through which components move their series. See docs/metrics.md.
 */
export { collectProcessMetrics, metricsRegistry } from './metrics-registry.ts';
export {
  signatureFailures,
  webhookBacklog,
  webhookBackpressure,
  webhookInFlight,
  webhookOutcomes,
} from './webhook.metrics.ts';
export {
  soleTenantMetrics,
  tenantMetrics,
  tenantOnlyMetric,
  type TenantMetrics,
} from './tenant-metrics.ts';
export { authThrottled } from './auth.metrics.ts';
export { observeJobs, type ObservableWorker } from './job-metrics.ts';
export {
  addScrapeSource,
  type MetricReader,
  type MetricSample,
  type ObservedQueue,
  type BooksReader,
  type ScrapeSource,
} from './scrape-collectors.ts';
export {
  createMetricsServer,
  type MetricsServer,
  type MetricsServerOptions,
} from './metrics-server.ts';
export {
  mountHealthRoutes,
  METRICS_MOVED,
  metricsMovedWarning,
  type HealthRoutesOptions,
  type ProcessReadiness,
} from './health-routes.ts';
export { databaseUnwritable } from './database.metrics.ts';
