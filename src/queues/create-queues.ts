import { Queue } from 'bullmq';
import { ClosableRedisConnection } from './closable.ts';
import type {
  FollowUpQueueData,
  IngestJobData,
  ScheduledJobData,
  SyncQueueJobData,
} from './job-types.ts';
import { QueueName } from './job-types.ts';
import {
  DEFAULT_JOB_OPTIONS,
  DEFAULT_QUEUE_PREFIX,
  FOLLOW_UP_JOB_OPTIONS,
  KEEP_QUEUE_EVENTS,
  SCHEDULED_JOB_OPTIONS,
  type Queues,
  type QueueSettings,
} from './queues.ts';

/** The five queues on one connection; the one place the queues load BullMQ itself. */
export function createQueues(settings: QueueSettings): Queues {
  const prefix = settings.prefix ?? DEFAULT_QUEUE_PREFIX;
  const common = {
    connection: settings.connection,
    prefix,
    defaultJobOptions: DEFAULT_JOB_OPTIONS,
    streams: { events: { maxLen: KEEP_QUEUE_EVENTS } },
  };
  const ingest = new Queue<IngestJobData>(QueueName.ingest, common, ClosableRedisConnection);
  const sync = new Queue<SyncQueueJobData>(QueueName.sync, common, ClosableRedisConnection);
  const followUp = new Queue<FollowUpQueueData>(
    QueueName.followUp,
    { ...common, defaultJobOptions: FOLLOW_UP_JOB_OPTIONS },
    ClosableRedisConnection,
  );
  const receipts = new Queue<FollowUpQueueData>(
    QueueName.receipts,
    { ...common, defaultJobOptions: FOLLOW_UP_JOB_OPTIONS },
    ClosableRedisConnection,
  );
  const scheduled = new Queue<ScheduledJobData>(
    QueueName.scheduled,
    { ...common, defaultJobOptions: SCHEDULED_JOB_OPTIONS },
    ClosableRedisConnection,
  );
  const all = [ingest, sync, followUp, receipts, scheduled];
  for (const queue of all) queue.on('error', () => undefined);
  return {
    ingest,
    sync,
    followUp,
    receipts,
    scheduled,
    prefix,
    async waitUntilReady() {
      await Promise.all(all.map((queue) => queue.waitUntilReady()));
    },
    async close() {
      await Promise.allSettled(all.map((queue) => queue.close()));
    },
  };
}
