import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from './metrics-registry.ts';
import type { TenantMetrics } from './tenant-metrics.ts';

function counter<T extends string>(name: string, help: string, labelNames: readonly T[]) {
  // A module loaded twice (tests, tsx reloads) must not register the metric twice.
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Counter<T>;
  return new Counter<T>({ name, help, labelNames, registers: [metricsRegistry] });
}

// `tenant`: set by the workers of a tenant in a process serving several (tenant-metrics.ts).

const jobDuration =
  (metricsRegistry.getSingleMetric('paysync_job_duration_seconds') as
    Histogram<'queue' | 'job' | 'outcome' | 'tenant'> | undefined) ??
  new Histogram({
    name: 'paysync_job_duration_seconds',
    help: 'Time a worker spent on one attempt of a job, by queue, job name and outcome',
    labelNames: ['queue', 'job', 'outcome', 'tenant'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [metricsRegistry],
  });

const jobFailures = counter(
  'paysync_job_failures_total',
  'Failed job attempts, by queue and job name; final="true" when BullMQ gives up (no retry left)',
  ['queue', 'job', 'final', 'tenant'],
);

/** What {@link observeJobs} needs of a BullMQ worker (its events). */
export interface ObservableWorker {
  on(event: 'completed', listener: (job: FinishedJob) => void): unknown;
  on(event: 'failed', listener: (job: FinishedJob | undefined, error: Error) => void): unknown;
}

interface FinishedJob {
  readonly name: string;
  readonly processedOn?: number | undefined;
  readonly finishedOn?: number | undefined;
  readonly attemptsMade: number;
  readonly opts: { readonly attempts?: number | undefined };
}

function secondsOf(job: FinishedJob): number | undefined {
  if (job.processedOn === undefined) return undefined;
  // A duration, not the clock: BullMQ stamps processedOn/finishedOn with the machine's
  // Date.now(), so an attempt without finishedOn is measured up to the machine's now too.
  // eslint-disable-next-line paysync/one-clock -- elapsed time against BullMQ's own stamps
  return Math.max(0, ((job.finishedOn ?? Date.now()) - job.processedOn) / 1000);
}

/**
 * Counts every job attempt of `worker` (on queue `queue`) into `paysync_job_duration_seconds`
 * and `paysync_job_failures_total`, from BullMQ's own events: the processors stay unaware.
 * `metrics` is the handle of the tenant whose queue this is: in a process serving several, its
 * series carry the tenant's label.
 */
export function observeJobs(worker: ObservableWorker, queue: string, metrics: TenantMetrics): void {
  worker.on('completed', (job) => {
    const seconds = secondsOf(job);
    if (seconds !== undefined)
      metrics.observe(jobDuration, { queue, job: job.name, outcome: 'ok' }, seconds);
  });
  worker.on('failed', (job, error) => {
    if (!job) return;
    const final =
      error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    metrics.inc(jobFailures, { queue, job: job.name, final: String(final) });
    const seconds = secondsOf(job);
    if (seconds !== undefined)
      metrics.observe(jobDuration, { queue, job: job.name, outcome: 'failed' }, seconds);
  });
}
