import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  JobName,
  QueueName,
  syncJobNameFor,
  type IngestJobData,
  type SyncJobData,
} from './job-types.ts';

export interface QueueSettings {
  readonly connection: Redis;
  /** BullMQ key prefix; tests give each run its own. @defaultValue `paysync` */
  readonly prefix?: string;
}

export interface Queues {
  readonly ingest: Queue<IngestJobData>;
  readonly sync: Queue<SyncJobData>;
  readonly followUp: Queue;
  readonly prefix: string;
  close(): Promise<void>;
}

export const DEFAULT_QUEUE_PREFIX = 'paysync';

/**
 * Finished jobs are dropped (the database keeps the record); failed ones are kept a week
 * so an operator can see why. Retries back off exponentially.
 */
const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
};

export function createQueues(settings: QueueSettings): Queues {
  const prefix = settings.prefix ?? DEFAULT_QUEUE_PREFIX;
  const common = {
    connection: settings.connection,
    prefix,
    defaultJobOptions: DEFAULT_JOB_OPTIONS,
  };
  const ingest = new Queue<IngestJobData>(QueueName.ingest, common);
  const sync = new Queue<SyncJobData>(QueueName.sync, common);
  const followUp = new Queue(QueueName.followUp, common);
  for (const queue of [ingest, sync, followUp]) queue.on('error', () => undefined);
  return {
    ingest,
    sync,
    followUp,
    prefix,
    async close() {
      await Promise.allSettled([ingest.close(), sync.close(), followUp.close()]);
    },
  };
}

/** BullMQ ids may not be all digits nor contain ':'; inbox ids are numbers. */
export function ingestJobId(inboxId: number): string {
  return `inbox-${inboxId}`;
}

/** One key per resource, so a burst of events about it dedupes onto one fetch. */
export function syncKey(data: Pick<SyncJobData, 'kind' | 'id' | 'reference'>): string {
  const handle = data.id ?? `ref-${data.reference ?? 'unknown'}`;
  return `${data.kind}-${handle}`.replaceAll(':', '_');
}

/**
 * Enqueues classification of one inbox row. The job id is derived from the inbox id, so
 * enqueueing the same row twice (receiver, then recovery sweep) runs it once.
 */
export async function enqueueIngest(queues: Queues, inboxId: number): Promise<void> {
  await queues.ingest.add(JobName.ingestEvent, { inboxId }, { jobId: ingestJobId(inboxId) });
}

/**
 * Enqueues a fetch of one resource. Events about a resource whose fetch is waiting are
 * dropped (the fetch will see their change); one arriving while the fetch runs is kept as
 * a single follow-up fetch (`keepLastIfActive`), so no change is missed and a burst of N
 * events costs at most two fetches.
 */
export async function enqueueSync(queues: Queues, data: SyncJobData): Promise<void> {
  await queues.sync.add(syncJobNameFor[data.kind], data, {
    deduplication: { id: syncKey(data), keepLastIfActive: true },
  });
}
