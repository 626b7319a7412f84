import { Gauge } from 'prom-client';
import { metricsRegistry } from './metrics-registry.ts';
import { tenantOnlyMetric } from './tenant-metrics.ts';

function gauge(name: string, help: string) {
  // A module loaded twice (tests, tsx reloads) must not register the metric twice.
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Gauge<'tenant'>;
  return tenantOnlyMetric(
    new Gauge<'tenant'>({ name, help, labelNames: ['tenant'], registers: [metricsRegistry] }),
  );
}

/**
 * 1 while the daemon's last write probe failed (a full disk, a read-only database, a revoked
 * privilege), 0 otherwise: the `database_unwritable` alert's condition (docs/operations.md).
 */
export const databaseUnwritable = gauge(
  'paysync_database_unwritable',
  "1 while the database refuses the daemon's write probe, 0 when it takes writes",
);
