import { Worker } from 'bullmq';
import { loadConfig, type JanitorSettings } from '../../../src/config/index.ts';
import { createRedisConnection, QueueName, type SyncJobData } from '../../../src/queues/index.ts';
import { syncResource, type SyncResult } from '../../../src/reconcile/index.ts';
import type { SimulatorOptions } from '../../../src/sim/index.ts';
import { createSyncContext, type SyncContext } from '../../processing/support/sync-context.ts';
import { TEST_REDIS_URL } from '../../support/test-redis.ts';

export interface JanitorContext extends SyncContext {
  /** The injected clock the syncs and the janitor read; starts at the simulator's clock. */
  now(): Date;
  /** Moves the simulator clock and the injected clock together. */
  advance(ms: number): void;
  /** Moves both clocks to `at` (never backwards). */
  advanceTo(at: number): void;
  readonly settings: JanitorSettings;
  /** Runs every queued sync job, one at a time, as a worker would; returns their results. */
  runQueuedSyncs(): Promise<{ data: SyncJobData; result: SyncResult }[]>;
}

/**
 * A sync context whose clock is injected and moved in step with the simulator's frozen clock,
 * plus a manual worker on the sync queue, so a test can step through the janitor's schedule
 * without sleeping.
 */
export async function createJanitorContext(
  options: { sim?: SimulatorOptions; env?: Record<string, string> } = {},
): Promise<JanitorContext> {
  let clock = new Date();
  const context = await createSyncContext({
    ...(options.sim ? { sim: options.sim } : {}),
    overrides: { now: () => clock },
  });
  clock = new Date(context.sim.control.now());
  const settings = loadConfig(options.env ?? {}).janitor;
  const connection = createRedisConnection(TEST_REDIS_URL, 'worker');
  const worker = new Worker<SyncJobData>(QueueName.sync, null, {
    connection,
    prefix: context.queues.prefix,
    autorun: false,
  });
  const advance = (ms: number) => {
    context.sim.control.advance(ms);
    clock = new Date(clock.getTime() + ms);
  };
  return {
    ...context,
    settings,
    now: () => clock,
    advance,
    advanceTo(at) {
      advance(Math.max(0, at - clock.getTime()));
    },
    async runQueuedSyncs() {
      const done: { data: SyncJobData; result: SyncResult }[] = [];
      for (;;) {
        const job = await worker.getNextJob('test-token', { block: false });
        if (!job) return done;
        const result = await syncResource(context.deps, job.data, { attempt: 1 });
        await job.moveToCompleted(result.outcome, 'test-token', false);
        done.push({ data: job.data, result });
      }
    },
    async cleanup() {
      await worker.close();
      await connection.quit().catch(() => connection.disconnect());
      await context.cleanup();
    },
  };
}
