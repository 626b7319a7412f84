import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Component } from '../lifecycle/index.ts';
import { observeJobs, soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';
import { ClosableWorker, QueueName } from '../queues/index.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each queue carries its own data type
type Processor = (job: Job<any>) => Promise<unknown>;

export interface WorkerPoolOptions {
  readonly connection: Redis;
  readonly prefix: string;
  /** Jobs at once on the ingest and sync queues. */
  readonly concurrency: number;
  /** A job's lock; a dead worker's job is taken over after about this long. */
  readonly lockMs: number;
  readonly processors: {
    readonly ingest: Processor;
    readonly sync: Processor;
    readonly followUp: Processor;
    readonly scheduled: Processor;
  };
  readonly logger: Logger;
  /** Runs before any worker takes a job (the credential check). */
  readonly beforeStart?: () => Promise<void>;
  /**
   * The metrics handle of the tenant whose queues these are: in a process serving several, the
   * job series carry the tenant's label. @defaultValue the handle of a process of one tenant
   */
  readonly metrics?: TenantMetrics;
}

export interface WorkerPool extends Component {
  /** The BullMQ workers, once started. */
  readonly workers: readonly Worker[];
}

/**
 * The BullMQ workers of one process, one per queue. `stop()` stops taking jobs and waits for
 * the active ones to finish (BullMQ `close()`); the caller bounds that with its deadline.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const workers: Worker[] = [];
  const { logger } = options;
  const metrics = options.metrics ?? soleTenantMetrics;
  const make = (queue: string, processor: Processor, concurrency: number) => {
    const worker = new ClosableWorker(queue, processor, {
      connection: options.connection,
      prefix: options.prefix,
      concurrency,
      lockDuration: options.lockMs,
      stalledInterval: options.lockMs,
    });
    worker.on('error', (error) => logger.error({ queue, err: error }, 'worker error'));
    observeJobs(worker, queue, metrics);
    worker.on('stalled', (jobId) =>
      logger.warn({ queue, jobId }, 'job stalled (its worker died or hung); handed out again'),
    );
    worker.on('failed', (job, error) => {
      if (!job) return;
      const final =
        error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
      const line = {
        queue,
        job: job.name,
        jobId: job.id,
        attempts: job.attemptsMade,
        reason: error.message,
      };
      if (final) logger.warn(line, 'job failed for good');
      else logger.debug(line, 'job failed; BullMQ retries it with back-off');
    });
    workers.push(worker);
  };
  return {
    name: 'workers',
    get workers() {
      return workers;
    },
    async start() {
      await options.beforeStart?.();
      make(QueueName.ingest, options.processors.ingest, options.concurrency);
      make(QueueName.sync, options.processors.sync, options.concurrency);
      make(QueueName.followUp, options.processors.followUp, 2);
      // The same processor: receipts are outbox rows too, in a queue of their own.
      make(QueueName.receipts, options.processors.followUp, 2);
      make(QueueName.scheduled, options.processors.scheduled, 1);
      // Connected before start() returns, so a stop right after never cuts a half-open socket.
      await Promise.all(workers.map((worker) => worker.waitUntilReady()));
      logger.info(
        { prefix: options.prefix, concurrency: options.concurrency },
        'workers taking jobs (ingest, sync, follow-up, receipts, scheduled)',
      );
    },
    async stop() {
      const closing = workers.splice(0);
      const results = await Promise.allSettled(closing.map((worker) => worker.close()));
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
