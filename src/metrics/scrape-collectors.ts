import { Counter, Gauge } from 'prom-client';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { metricsRegistry } from './metrics-registry.ts';
import { soleTenantMetrics, type TenantMetrics } from './tenant-metrics.ts';

/** What the queue collector needs of a BullMQ queue. */
export interface ObservedQueue {
  readonly name: string;
  getJobCounts(...types: (typeof QUEUE_STATES)[number][]): Promise<Record<string, number>>;
  getJobs(
    types: ('wait' | 'paused')[],
    start?: number,
    end?: number,
    asc?: boolean,
  ): Promise<readonly ({ timestamp: number; delay?: number } | undefined)[]>;
}

/** One series of a gauge read at scrape time. */
export interface MetricSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/**
 * A seam for gauges whose data another component owns, read at scrape time:
 * - `alerts`: open alerts by state, labels `{ state }` (the alerts component);
 * - `lastSuccess`: the end of the last successful run of each scheduled task, in seconds since
 *   the epoch, labels `{ task }` (the `scheduled_runs` table of the polling component).
 * - `followUps`: follow-ups not consumed yet, by kind (`alert`, `receipt`), labels `{ kind }`
 *   (the outbox): the receipts' backlog behind the books.
 * The daemon passes the readers it has; a gauge without a reader is simply absent.
 */
export interface MetricReader {
  readonly metric: 'alerts' | 'lastSuccess' | 'followUps';
  read(): Promise<readonly MetricSample[]>;
}

/**
 * What the books gauges read: the ledger's open discrepancies, given by the process that holds
 * the database (the daemon passes the ledger's read repositories). Metrics sits below the
 * ledger in the layers (docs/architecture.md) and never imports it.
 */
export interface BooksReader {
  /** Unresolved discrepancies by kind. */
  openDiscrepancyCounts(): Promise<readonly { kind: string; count: number }[]>;
  /** The JSON details of unresolved balance drifts, newest first, at most `limit`. */
  openDriftDetails(limit: number): Promise<readonly string[]>;
  /** The newest balance snapshot of each account and currency (src/balances' `latestSnapshots`). */
  newestSnapshots(
    environment: string,
  ): Promise<readonly { accountType: string; currency: string; amount: number; asOf: string }[]>;
}

/** What one process lets its `/metrics` read on each scrape. */
export interface ScrapeSource {
  readonly queues?: readonly ObservedQueue[];
  readonly db?: Kysely<Database>;
  /** The books gauges' reader; they are absent without it. */
  readonly books?: BooksReader;
  /** The service environment whose balance snapshots count (`sandbox` or `live`). */
  readonly environment?: string;
  readonly readers?: readonly MetricReader[];
  /**
   * The metrics handle of the tenant whose books these are: in a process serving several
   * (docs/tenants.md), every series read from this source carries the tenant's label.
   * @defaultValue the handle of a process of one tenant (no label)
   */
  readonly metrics?: TenantMetrics;
}

/** Queue states reported by `paysync_queue_jobs`. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'paused', 'failed'] as const;

/** Each part of a scrape gets this long; a slow one is skipped (and counted), never waited on. */
const PART_TIMEOUT_MS = 2000;
/** Gauges read in one scrape share one reading: a scrape costs one round of queries. */
const READING_REUSE_MS = 1000;
/** Balance rows read per scrape: a deployment has a handful of accounts. */
/** Open drift rows read per scrape (one per drifting account and currency at most). */
const DRIFT_ROWS = 200;

function gauge<T extends string>(
  name: string,
  help: string,
  labelNames: readonly T[],
): Gauge<T | 'tenant'> {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Gauge<T | 'tenant'>;
  return new Gauge<T | 'tenant'>({
    name,
    help,
    // `tenant` only appears on the series of a tenant's source (ScrapeSource.metrics).
    labelNames: [...labelNames, 'tenant'],
    registers: [metricsRegistry],
    async collect() {
      await fillGauges();
    },
  });
}

const collectErrors =
  (metricsRegistry.getSingleMetric('paysync_metrics_collect_errors_total') as
    Counter<'collector' | 'tenant'> | undefined) ??
  new Counter({
    name: 'paysync_metrics_collect_errors_total',
    help: 'Scrape-time reads that failed or took too long (their series are left out), by collector',
    labelNames: ['collector', 'tenant'] as const,
    registers: [metricsRegistry],
    // The errors of this very scrape are counted before the counter is written out.
    async collect() {
      await fillGauges();
    },
  });

const gauges = {
  queueJobs: gauge('paysync_queue_jobs', 'Jobs in each BullMQ queue, by state', ['queue', 'state']),
  oldestWaiting: gauge(
    'paysync_queue_oldest_waiting_age_seconds',
    'Age of the oldest job waiting for a worker (0 when none waits), by queue',
    ['queue'],
  ),
  discrepancies: gauge('paysync_discrepancies_open', 'Open discrepancies, by kind', ['kind']),
  alerts: gauge('paysync_alerts', 'Alerts, by state', ['state']),
  lastSuccess: gauge(
    'paysync_scheduled_task_last_success_timestamp_seconds',
    'When each scheduled task last ran to success (seconds since the epoch)',
    ['task'],
  ),
  followUps: gauge(
    'paysync_follow_ups_waiting',
    'Follow-ups written and not consumed yet, by kind (alert, receipt): receipts wait behind the books for the service budget',
    ['kind'],
  ),
  balance: gauge(
    'paysync_balance_minor_units',
    "The service's balance of each account at its latest snapshot, in minor units",
    ['account_type', 'currency'],
  ),
  balanceAsOf: gauge(
    'paysync_balance_snapshot_timestamp_seconds',
    'The instant of the latest balance snapshot of each account (seconds since the epoch)',
    ['account_type', 'currency'],
  ),
  drift: gauge(
    'paysync_balance_drift_minor_units',
    'Service balance minus ledger balance of each snapshotted account while a balance_drift discrepancy is open (0 otherwise), in minor units',
    ['account_type', 'currency'],
  ),
};

const sources = new Set<ScrapeSource>();

/**
 * Lets `/metrics` read queues, database and readers of `source` on each scrape; returns the
 * function that stops it (the daemon calls it before closing its connections).
 */
export function addScrapeSource(source: ScrapeSource): () => void {
  sources.add(source);
  return () => {
    sources.delete(source);
  };
}

/**
 * `read()`, or undefined (counted in `paysync_metrics_collect_errors_total`, through the source's
 * metrics handle) if it fails or is slow.
 */
async function guarded<T>(
  what: string,
  metrics: TenantMetrics,
  read: () => Promise<T>,
): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), PART_TIMEOUT_MS);
  });
  try {
    const outcome = await Promise.race([read().then((value) => ({ value })), timeout]);
    if (outcome === 'timeout') {
      metrics.inc(collectErrors, { collector: what });
      return undefined;
    }
    return outcome.value;
  } catch {
    metrics.inc(collectErrors, { collector: what });
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** A sample read from a source, set through that source's metrics handle. */
interface SourceSample extends MetricSample {
  readonly metrics: TenantMetrics;
}

interface Reading {
  readonly samples: Map<keyof typeof gauges, SourceSample[]>;
}

async function readQueues(queues: readonly ObservedQueue[], now: number) {
  const samples: { jobs: MetricSample[]; oldest: MetricSample[] } = { jobs: [], oldest: [] };
  await Promise.all(
    queues.map(async (queue) => {
      // The far end of the wait list (and of the paused list, where a paused queue keeps its
      // waiting jobs): the job that has waited longest. One job each, whatever the depth.
      const [counts, ...oldest] = await Promise.all([
        queue.getJobCounts(...QUEUE_STATES),
        queue.getJobs(['wait'], 0, 0, true),
        queue.getJobs(['paused'], 0, 0, true),
      ]);
      for (const state of QUEUE_STATES) {
        samples.jobs.push({ labels: { queue: queue.name, state }, value: counts[state] ?? 0 });
      }
      // A delayed job (a retry's back-off, say) waits from when it became due.
      const since = Math.min(
        now,
        ...oldest.flat().map((job) => (job ? job.timestamp + (job.delay ?? 0) : now)),
      );
      samples.oldest.push({
        labels: { queue: queue.name },
        value: Math.max(0, (now - since) / 1000),
      });
    }),
  );
  return samples;
}

async function readDiscrepancies(books: BooksReader): Promise<MetricSample[]> {
  const rows = await books.openDiscrepancyCounts();
  return rows.map((row) => ({ labels: { kind: row.kind }, value: row.count }));
}

async function readBalances(books: BooksReader, environment: string) {
  const newest = new Map<
    string,
    { accountType: string; currency: string; amount: number; asOf: string }
  >();
  for (const row of await books.newestSnapshots(environment)) {
    newest.set(`${row.accountType}|${row.currency}`, row);
  }
  const drifts = await books.openDriftDetails(DRIFT_ROWS);
  const drift = new Map<string, number>();
  for (const row of drifts) {
    const detail = parseDetail(row);
    if (!detail || detail.environment !== environment) continue;
    const key = `${detail.accountType}|${detail.currency}`;
    if (!drift.has(key)) drift.set(key, detail.difference);
  }
  const balance: MetricSample[] = [];
  const asOf: MetricSample[] = [];
  const drifted: MetricSample[] = [];
  for (const [key, row] of newest) {
    const labels = { account_type: row.accountType, currency: row.currency };
    balance.push({ labels, value: row.amount });
    asOf.push({ labels, value: Date.parse(row.asOf) / 1000 });
    drifted.push({ labels, value: drift.get(key) ?? 0 });
  }
  for (const [key, difference] of drift) {
    if (newest.has(key)) continue;
    const [accountType = '', currency = ''] = key.split('|');
    drifted.push({ labels: { account_type: accountType, currency }, value: difference });
  }
  return { balance, asOf, drift: drifted };
}

function parseDetail(
  text: string,
): { environment: string; accountType: string; currency: string; difference: number } | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    const difference = Number(value.difference);
    if (
      typeof value.accountType !== 'string' ||
      typeof value.currency !== 'string' ||
      !Number.isFinite(difference)
    )
      return undefined;
    return {
      environment: String(value.environment ?? ''),
      accountType: value.accountType,
      currency: value.currency,
      difference,
    };
  } catch {
    return undefined;
  }
}

async function readAll(): Promise<Reading> {
  const samples = new Map<keyof typeof gauges, SourceSample[]>();
  const now = Date.now();
  await Promise.all(
    [...sources].map(async (source) => {
      const metrics = source.metrics ?? soleTenantMetrics;
      const add = (name: keyof typeof gauges, more: readonly MetricSample[] | undefined) => {
        if (!more) return;
        const read = more.map((sample) => ({ ...sample, metrics }));
        samples.set(name, [...(samples.get(name) ?? []), ...read]);
      };
      const parts: Promise<void>[] = [];
      if (source.queues && source.queues.length > 0) {
        const queues = source.queues;
        parts.push(
          guarded('queues', metrics, () => readQueues(queues, now)).then((read) => {
            add('queueJobs', read?.jobs);
            add('oldestWaiting', read?.oldest);
          }),
        );
      }
      const { db, books } = source;
      if (db && books) {
        parts.push(
          guarded('discrepancies', metrics, () => readDiscrepancies(books)).then((read) =>
            add('discrepancies', read),
          ),
        );
        if (source.environment) {
          const environment = source.environment;
          parts.push(
            guarded('balances', metrics, () => readBalances(books, environment)).then((read) => {
              add('balance', read?.balance);
              add('balanceAsOf', read?.asOf);
              add('drift', read?.drift);
            }),
          );
        }
      }
      for (const reader of source.readers ?? []) {
        parts.push(
          guarded(reader.metric, metrics, () => reader.read()).then((read) =>
            add(reader.metric, read),
          ),
        );
      }
      await Promise.all(parts);
    }),
  );
  return { samples };
}

let lastReading: { at: number; reading: Promise<Reading> } | undefined;

/** Reads every source once per scrape (the gauges' `collect` share it) and sets the gauges. */
async function fillGauges(): Promise<void> {
  const now = Date.now();
  if (!lastReading || now - lastReading.at > READING_REUSE_MS) {
    lastReading = { at: now, reading: readAll() };
  }
  const reading = lastReading.reading;
  const { samples } = await reading;
  // Only the first collect of a scrape writes: the others find the same reading already set.
  if (filled.has(reading)) return;
  filled.add(reading);
  for (const [name, metric] of Object.entries(gauges) as [keyof typeof gauges, Gauge][]) {
    metric.reset();
    for (const sample of samples.get(name) ?? []) {
      sample.metrics.set(metric, sample.labels, sample.value);
    }
  }
}
const filled = new WeakSet<Promise<Reading>>();
