export * from './job-types.ts';
export {
  createQueues,
  DEFAULT_QUEUE_PREFIX,
  enqueueIngest,
  enqueueScheduledTick,
  enqueueSync,
  ingestJobId,
  syncKey,
  type Queues,
  type QueueSettings,
} from './queues.ts';
export {
  assertRedisNoEviction,
  createRedisConnection,
  RedisPolicyError,
} from './redis-connection.ts';
