import { Worker, type Queue } from 'bullmq';
import { expect } from 'vitest';
import { until } from './until.ts';

/** BullMQ's reason for a job whose workers died under it past its stall limit. */
export const STALL_LIMIT_REASON = 'job stalled more than allowable limit';

/** Short locks, so that a dead worker's job is found stalled within a second. */
function stallOptions(queue: Queue) {
  return {
    connection: queue.opts.connection,
    ...(queue.opts.prefix !== undefined ? { prefix: queue.opts.prefix } : {}),
    lockDuration: 400,
    stalledInterval: 200,
    // The stall limit reached at the first stall (the daemon's workers allow one).
    maxStalledCount: 0,
  };
}

/**
 * Makes BullMQ fail the next job of `queue` as it does when workers die under a job (kill -9):
 * a worker takes it and dies without a word, and the next worker finds it stalled past the
 * limit and fails it for good, without running it. Resolves once `jobId` is failed so.
 */
export async function failByStalls(queue: Queue, jobId: string): Promise<void> {
  const dying = new Worker(queue.name, () => new Promise<never>(() => undefined), {
    ...stallOptions(queue),
    autorun: false,
  });
  const taken = new Promise<void>((resolve) => dying.once('active', () => resolve()));
  void dying.run();
  await taken;
  await dying.close(true);
  const next = new Worker(queue.name, async () => 'never reached', stallOptions(queue));
  try {
    await expect
      .poll(async () => (await queue.getJob(jobId))?.failedReason, { timeout: 10_000 })
      .toBe(STALL_LIMIT_REASON);
  } finally {
    await next.close();
  }
}

/** Runs the jobs of `queue` with a worker that returns `ran`, until `jobId` has run. */
export async function runJob(queue: Queue, jobId: string): Promise<void> {
  const worker = new Worker(queue.name, async () => 'ran', {
    ...stallOptions(queue),
    autorun: false,
  });
  let ran = false;
  worker.on('completed', (job) => {
    if (job.id === jobId) ran = true;
  });
  void worker.run();
  try {
    await until(() => ran, { message: `job ${jobId} run by a worker`, timeoutMs: 10_000 });
  } finally {
    await worker.close();
  }
}
