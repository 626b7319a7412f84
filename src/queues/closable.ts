import type { EventEmitter } from 'node:events';
import { RedisConnection, Worker, type Processor, type WorkerOptions } from 'bullmq';

const ignore = (): void => undefined;

/**
 * The connection class paysync hands to every BullMQ queue and worker (their constructors'
 * `Connection` argument).
 *
 * BullMQ re-emits a failed start-up of a connection (Redis down, then the connection ended)
 * as an 'error' event on its RedisConnection. `close()` removes every listener there, so that
 * later emit threw inside a promise handler: an unhandled rejection, `connect ECONNREFUSED`,
 * which stops Node. A receiver or daemon stopped while Redis was down crashed on its way out.
 * One no-op listener after closing turns it back into an ignored event.
 */
export class ClosableRedisConnection extends RedisConnection {
  override async close(force?: boolean): Promise<void> {
    try {
      await super.close(force);
    } finally {
      this.on('error', ignore);
    }
  }
}

/**
 * A BullMQ worker on {@link ClosableRedisConnection}. Its blocking connection, which BullMQ
 * builds with its own class and keeps private, gets the same no-op listener after closing.
 */
export class ClosableWorker<Data = unknown> extends Worker<Data> {
  constructor(name: string, processor: Processor<Data>, options: WorkerOptions) {
    super(name, processor, options, ClosableRedisConnection);
  }

  override async close(force?: boolean): Promise<void> {
    try {
      await super.close(force);
    } finally {
      const blocking = (this as unknown as { blockingConnection?: EventEmitter })
        .blockingConnection;
      blocking?.on('error', ignore);
    }
  }
}
