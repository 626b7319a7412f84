import type { Counter, Gauge, Histogram } from 'prom-client';

/**
 * One tenant's metrics handle (issue 41, docs/metrics.md "The `tenant` label"). In a process
 * serving several tenants each tenant's daemon holds one, made once where the daemon is
 * assembled from the tenant's name, and hands it to the components whose work moves a series;
 * every count, gauge and duration moved through it carries `tenant="<name>"`. A process of one
 * tenant has no name to give: its handle ({@link soleTenantMetrics}) sets no label, and
 * prom-client leaves a label declared but unset out of the series, so its `/metrics` reads as it
 * did before tenants. Components never name the tenant label themselves.
 */
export class TenantMetrics {
  /** `{ tenant }`, or `{}` for the handle of a process of one tenant. */
  readonly #label: { readonly tenant?: string };
  readonly #tenant: string | undefined;

  /** @internal made by {@link tenantMetrics} only, once per tenant. */
  constructor(tenant: string | undefined) {
    this.#tenant = tenant;
    this.#label = tenant === undefined ? {} : { tenant };
  }

  /** Adds `value` (1) to the series of `labels` and this tenant. */
  inc<L extends string>(
    counter: Counter<L> & DeclaresTenant<L>,
    labels: OtherLabels<L> = {},
    value = 1,
  ) {
    counter.inc(this.#with(labels), value);
  }

  /** Sets the series of `labels` and this tenant to `value`. */
  set<L extends string>(
    gauge: Gauge<L> & DeclaresTenant<L>,
    labels: OtherLabels<L>,
    value: number,
  ) {
    gauge.set(this.#with(labels), value);
  }

  /** Observes `value` in the series of `labels` and this tenant. */
  observe<L extends string>(
    histogram: Histogram<L> & DeclaresTenant<L>,
    labels: OtherLabels<L>,
    value: number,
  ) {
    histogram.observe(this.#with(labels), value);
  }

  /** Starts timing into the series of `labels` and this tenant; the function returned stops it. */
  startTimer<L extends string>(
    histogram: Histogram<L> & DeclaresTenant<L>,
    labels: OtherLabels<L>,
  ): () => number {
    const end = histogram.startTimer(this.#with(labels));
    return () => end();
  }

  /**
   * Removes this tenant's series of `gauge` (every series, for the handle of a process of one
   * tenant), before setting the ones that still hold: the other tenants' stay as they are.
   */
  async clear<L extends string>(gauge: Gauge<L> & DeclaresTenant<L>): Promise<void> {
    if (this.#tenant === undefined) {
      gauge.reset();
      return;
    }
    for (const { labels } of (await gauge.get()).values) {
      if ((labels as { tenant?: unknown }).tenant === this.#tenant) gauge.remove(labels);
    }
  }

  /**
   * Called once as a daemon is assembled: this tenant's series (unlabelled, for a process of one
   * tenant) of every metric whose only label is `tenant` exist from now on, at 0 until something
   * moves them (see {@link tenantOnlyMetric}).
   */
  showTenantSeries(): void {
    // inc by 0: creates the series at 0, and leaves one another daemon already moved as it is.
    for (const metric of tenantOnly) metric.inc(this.#label, 0);
  }

  /** `labels` and this tenant's label (last, as the series have always read). */
  #with<L extends string>(labels: OtherLabels<L>): Partial<Record<L, string | number>> {
    return { ...labels, ...this.#label } as Partial<Record<L, string | number>>;
  }
}

/**
 * A metric moved through a handle declares the label `tenant` (left unset in a process of one
 * tenant); one that does not is refused here rather than by prom-client in a process of several.
 */
type DeclaresTenant<L extends string> = 'tenant' extends L
  ? unknown
  : { readonly 'declare the label tenant': never };

/** A metric's labels but `tenant`, which the handle sets. */
export type OtherLabels<L extends string> = Partial<Record<Exclude<L, 'tenant'>, string | number>>;

/** The handle of a process of one tenant: no `tenant` label (the components' default). */
export const soleTenantMetrics = new TenantMetrics(undefined);

const handles = new Map<string, TenantMetrics>();

/**
 * The one metrics handle of `tenant` (the same handle each time: a tenant's daemon made again
 * after a failed start moves the same series), or {@link soleTenantMetrics} without a name.
 */
export function tenantMetrics(tenant: string | undefined): TenantMetrics {
  if (tenant === undefined) return soleTenantMetrics;
  let handle = handles.get(tenant);
  if (!handle) handles.set(tenant, (handle = new TenantMetrics(tenant)));
  return handle;
}

type TenantOnly = Counter<'tenant'> | Gauge<'tenant'>;

const tenantOnly = new Set<TenantOnly>();

/**
 * Marks a counter or gauge whose only label is `tenant`. prom-client shows a metric declared
 * without labels at 0 from the start, but one with a label only once that label is set; so
 * that such a series still reads 0 before anything moves it (and a process of one tenant shows
 * `name 0` as before), {@link TenantMetrics.showTenantSeries} sets each tenant's at 0.
 */
export function tenantOnlyMetric<M extends TenantOnly>(metric: M): M {
  tenantOnly.add(metric);
  return metric;
}
