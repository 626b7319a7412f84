// Everything of the light entry (job names, payloads, enqueue helpers), then what loads BullMQ.
export * from './enqueue.ts';
export { createQueues } from './create-queues.ts';
export {
  askSentinels,
  assertRedisNoEviction,
  connectedAddress,
  createRedisConnection,
  deletePrefixedKeys,
  readEvictionPolicy,
  RedisConfigRefusedError,
  RedisPolicyError,
  type EvictionPolicyReading,
  type RedisRole,
  type SentinelAnswer,
} from './redis-connection.ts';
export { ClosableRedisConnection, ClosableWorker } from './closable.ts';
