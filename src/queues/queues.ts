// Types only from bullmq and ioredis: this file is the light half of the queues (see enqueue.ts);
// createQueues, which needs BullMQ itself, is in create-queues.ts.
import type { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  JobName,
  syncJobNameFor,
  type FollowUpQueueData,
  type IngestJobData,
  type ScheduledJobData,
  type SyncBatchJobData,
  type SyncJobData,
  type SyncQueueJobData,
} from './job-types.ts';
import type { ObservedVia } from '../resources/index.ts';
import { DEFAULT_SYNC_BATCH_SIZE } from './sync-batch.defaults.ts';

export interface QueueSettings {
  readonly connection: Redis;
  /** BullMQ key prefix; tests give each run its own. @defaultValue `paysync` */
  readonly prefix?: string;
}

export interface Queues {
  readonly ingest: Queue<IngestJobData>;
  readonly sync: Queue<SyncQueueJobData>;
  readonly followUp: Queue<FollowUpQueueData>;
  /** Receipt follow-ups, apart from the rest (see QueueName.receipts). */
  readonly receipts: Queue<FollowUpQueueData>;
  readonly scheduled: Queue<ScheduledJobData>;
  readonly prefix: string;
  /** Resolves once every queue's connection is ready (its start-up commands have answered). */
  waitUntilReady(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_QUEUE_PREFIX = 'paysync';

/** Tries of a job (and of a sync batch's references) before it is given up. */
export const JOB_ATTEMPTS = 8;

/**
 * Completed jobs kept per queue where a finished job is worth a look (follow-ups, scheduled
 * ticks): the newest {@link KEEP_COMPLETED_JOBS}, by count, never by age, so Redis holds the
 * same megabyte or two after a week as after an hour (docs/operations.md). A job id's dedupe
 * does not depend on them: a follow-up re-run skips rows already consumed (their stamp in
 * `outbox`), and a scheduled slot runs once by its record in `scheduled_runs`. 200, not more:
 * a follow-up job holds up to 100 rows (3 to 30 KB), and at 1,000 the kept jobs were most of
 * Redis and swung with the batches' sizes (docs/performance.md, "Flat in time").
 */
export const KEEP_COMPLETED_JOBS = 200;

/**
 * Entries of BullMQ's event stream kept per queue (its default is 10,000, 1 to 2 MB a queue).
 * paysync reads no queue events (no `QueueEvents`); the stream is only for a person tailing it
 * with `XRANGE`, and 1,000 entries are the last few hundred jobs.
 */
export const KEEP_QUEUE_EVENTS = 1000;

/**
 * Failed jobs (every retry used) stay a week, so an operator sees them in the queue board and
 * the `dead_jobs` alert counts them, but at most this many per queue: a storm of failures
 * cannot fill Redis.
 */
export const KEEP_FAILED_JOBS = { age: 7 * 24 * 3600, count: 1000 } as const;

/**
 * Retries back off exponentially. Ingest and sync jobs are dropped as they complete: their ids
 * come from inbox rows, and the recovery sweep must be able to add a row's job again while the
 * row is open (a completed job kept under that id would make its add a no-op).
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: JOB_ATTEMPTS,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: KEEP_FAILED_JOBS,
};

/** Follow-ups: the newest completed ones stay visible; a late second hand-out re-runs as a no-op. */
export const FOLLOW_UP_JOB_OPTIONS: JobsOptions = {
  ...DEFAULT_JOB_OPTIONS,
  removeOnComplete: { count: KEEP_COMPLETED_JOBS },
};

/**
 * Scheduled ticks: three tries, the newest completed ones kept. Two schedulers adding the
 * same slot add one job while it exists; after that the run record skips the slot.
 */
export const SCHEDULED_JOB_OPTIONS: JobsOptions = {
  ...DEFAULT_JOB_OPTIONS,
  attempts: 3,
  removeOnComplete: { count: KEEP_COMPLETED_JOBS },
};

/** BullMQ ids may not be all digits nor contain ':'; inbox ids are numbers. */
export function ingestJobId(inboxId: number): string {
  return `inbox-${inboxId}`;
}

/** One key per resource, so a burst of events about it dedupes onto one fetch. */
export function syncKey(data: Pick<SyncJobData, 'kind' | 'id' | 'reference'>): string {
  const handle = data.id ?? `ref-${data.reference ?? 'unknown'}`;
  return `${data.kind}-${handle}`.replaceAll(':', '_');
}

function ingestJob(inboxId: number, via: ObservedVia, traceparent: string | undefined) {
  const data: IngestJobData = {
    inboxId,
    ...(via === 'webhook' ? {} : { via }),
    ...(traceparent ? { traceparent } : {}),
  };
  return { name: JobName.ingestEvent, data, opts: { jobId: ingestJobId(inboxId) } };
}

/**
 * Enqueues classification of one inbox row, or of several in one round trip (the receiver's
 * group commit). The job id is derived from the inbox id, so enqueueing the same row twice
 * (receiver, then recovery sweep) runs it once. Each job carries the trace of `traceOf` its
 * row (docs/observability.md). @defaultValue none: each starts a trace of its own
 */
export async function enqueueIngest(
  queues: Queues,
  inboxIds: number | readonly number[],
  via: ObservedVia = 'webhook',
  traceOf: (inboxId: number) => string | undefined = () => undefined,
): Promise<void> {
  if (typeof inboxIds === 'number') {
    const job = ingestJob(inboxIds, via, traceOf(inboxIds));
    await queues.ingest.add(job.name, job.data, job.opts);
    return;
  }
  await queues.ingest.addBulk(inboxIds.map((inboxId) => ingestJob(inboxId, via, traceOf(inboxId))));
}

/**
 * Enqueues a fetch of one resource. Events about a resource whose fetch is waiting are
 * dropped (the fetch will see their change); one arriving while the fetch runs is kept as
 * a single follow-up fetch (`keepLastIfActive`), so no change is missed and a burst of N
 * events costs at most two fetches.
 */
export async function enqueueSync(queues: Queues, data: SyncJobData): Promise<void> {
  // The sync continues the trace that called for it (an ingest job, a janitor's tick), when the
  // caller carries one; an undefined one is left out of the job's data.
  const { traceparent, ...untraced } = data;
  const traced = traceparent ? { ...untraced, traceparent } : untraced;
  await queues.sync.add(syncJobNameFor[data.kind], traced, {
    deduplication: { id: syncKey(data), keepLastIfActive: true },
  });
}

/** One reference per resource (by {@link syncKey}): the one with the newest inbox row. */
export function newestPerResource(refs: readonly SyncJobData[]): SyncJobData[] {
  const byResource = new Map<string, SyncJobData>();
  for (const ref of refs) {
    const key = syncKey(ref);
    const seen = byResource.get(key);
    if (!seen || (ref.inboxId ?? 0) > (seen.inboxId ?? 0)) byResource.set(key, ref);
  }
  return [...byResource.values()];
}

export interface SyncBatchOptions {
  /** References per job, at most. @defaultValue {@link DEFAULT_SYNC_BATCH_SIZE} */
  readonly batchSize?: number;
  /**
   * Wait before the job may run, so the events that follow soon after (a payment's
   * `processing` then `succeeded`) are covered by its one fetch. @defaultValue 0
   */
  readonly delayMs?: number;
  /** The try these references are on, for a batch handed back for retry. @defaultValue 1 */
  readonly attempt?: number;
}

/**
 * Enqueues work for resources, not events: the references are deduplicated by resource (the
 * newest inbox row of each kept), cut into jobs of at most `batchSize`, and added in one round
 * trip. The job id is derived from the inbox rows, so handing the same rows over twice runs
 * them once; the recovery sweep still owns rows Redis lost.
 */
export async function enqueueSyncBatch(
  queues: Queues,
  refs: readonly SyncJobData[],
  options: SyncBatchOptions = {},
): Promise<void> {
  const size = options.batchSize ?? DEFAULT_SYNC_BATCH_SIZE;
  const unique = newestPerResource(refs);
  const jobs = [];
  for (let start = 0; start < unique.length; start += size) {
    const chunk = unique.slice(start, start + size);
    const ids = chunk.map((ref) => ref.inboxId ?? 0);
    const attempt = options.attempt ?? 1;
    const traceparents = tracesOf(refs, chunk);
    const data: SyncBatchJobData = {
      refs: chunk,
      ...(attempt > 1 ? { attempt } : {}),
      ...(traceparents.length > 0 ? { traceparents } : {}),
    };
    const retry = attempt > 1 ? `-a${attempt}` : '';
    jobs.push({
      name: JobName.syncBatch,
      data,
      opts: {
        jobId: `batch-${Math.min(...ids)}-${Math.max(...ids)}-${chunk.length}${retry}`,
        ...(options.delayMs ? { delay: options.delayMs } : {}),
      },
    });
  }
  if (jobs.length > 0) await queues.sync.addBulk(jobs);
}

/** The traced webhooks behind a chunk's resources, the references dropped as older included. */
function tracesOf(refs: readonly SyncJobData[], chunk: readonly SyncJobData[]): string[] {
  const keys = new Set(chunk.map(syncKey));
  const traces = new Set<string>();
  for (const ref of refs)
    if (ref.traceparent && keys.has(syncKey(ref))) traces.add(ref.traceparent);
  return [...traces];
}

/**
 * Enqueues one scheduler tick. The job id is the task and its slot, so two schedulers firing
 * for the same slot enqueue one job.
 */
export async function enqueueScheduledTick(
  queues: Queues,
  name: string,
  data: ScheduledJobData,
): Promise<void> {
  await queues.scheduled.add(name, data, {
    jobId: `${data.task}-${data.slot}`.replace(/[:.]/g, '_'),
  });
}
