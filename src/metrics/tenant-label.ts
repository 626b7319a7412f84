import type { Counter, Gauge } from 'prom-client';

/**
 * The `tenant` label of the series one tenant's work moves (docs/metrics.md). In a process
 * serving several tenants each tenant's daemon knows its name, and every counter and histogram
 * it moves carries `tenant="<name>"`. A process of one tenant has no name to give: the label,
 * declared but left unset, is left out of the series (prom-client), so its `/metrics` reads as
 * it did before tenants.
 */
export type TenantLabel = { readonly tenant?: string };

/** `{ tenant }` for a tenant of a process serving several, `{}` otherwise. */
export function tenantLabel(tenant: string | undefined): TenantLabel {
  return tenant === undefined ? {} : { tenant };
}

type TenantOnly = Counter<'tenant'> | Gauge<'tenant'>;

const tenantOnly = new Set<TenantOnly>();

/**
 * Marks a counter or gauge whose only label is `tenant`. prom-client shows a metric declared
 * without labels at 0 from the start, but one with a label only once that label is set; so
 * that such a series still reads 0 before anything moves it (and a process of one tenant shows
 * `name 0` as before), {@link showTenantSeries} sets each tenant's at 0.
 */
export function tenantOnlyMetric<M extends TenantOnly>(metric: M): M {
  tenantOnly.add(metric);
  return metric;
}

/**
 * Called once per daemon as it is assembled: the series of `tenant` (unlabelled without one) of
 * every metric whose only label is `tenant` exist from now on, at 0 until something moves them.
 */
export function showTenantSeries(tenant: string | undefined): void {
  // inc by 0: creates the series at 0, and leaves one another daemon already moved as it is.
  for (const metric of tenantOnly) metric.inc(tenantLabel(tenant), 0);
}
