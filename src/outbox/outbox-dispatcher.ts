import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/index.ts';
import type { Component } from '../lifecycle/index.ts';
import type { TenantMetrics } from '../metrics/index.ts';
import type { Queues } from '../queues/index.ts';
import { dispatchOutbox, OutboxHandOutTimeout } from './dispatch-outbox.ts';
import { outboxSignal } from './outbox-signal.ts';
import { reasonOf } from '../error-reason.ts';

export interface OutboxDispatcherOptions {
  readonly db: Kysely<Database>;
  /** Queues on the worker connection: while Redis is away, a hand-out waits for it. */
  readonly queues: Queues;
  readonly logger: Logger;
  /** How often the outbox is read without a wake-up. @defaultValue 1000 */
  readonly pollMs?: number;
  /** How long `stop()` waits for a pass stuck on an absent Redis. @defaultValue 5000 */
  readonly stopWaitMs?: number;
  /** See {@link DispatchDependencies}: `PAYSYNC_OUTBOX_REDISPATCH_SECONDS`. @defaultValue 300000 */
  readonly redispatchAfterMs?: number;
  /** Rows one follow-up job carries: `PAYSYNC_OUTBOX_BATCH_SIZE`. @defaultValue 100 */
  readonly batchSize?: number;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
  /**
   * See {@link DispatchDependencies}: the tenant's metrics handle. @defaultValue the handle of a
   * process of one tenant (no label)
   */
  readonly metrics?: TenantMetrics;
}

export interface OutboxDispatcher extends Component {
  /** Runs a pass now (or right after the one running). */
  wake(): void;
  /** Stops handing out rows until `resume()`; rows keep accumulating. */
  pause(): void;
  resume(): void;
}

const DEFAULT_POLL_MS = 1000;

/**
 * The worker-side loop that moves outbox rows to BullMQ: woken after each commit that added
 * rows ({@link notifyOutbox}) and every `pollMs`. Passes never overlap within a process. A
 * failed pass (Redis refusing, the database busy) is logged once per outage and retried on the
 * next poll; nothing is lost, the rows wait in the table.
 */
export function createOutboxDispatcher(options: OutboxDispatcherOptions): OutboxDispatcher {
  const { logger } = options;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let paused = false;
  let stopped = true;
  let failing = false;
  // A hand-out Redis has not answered yet: no new one is queued behind it until it settles.
  let stalled: Promise<unknown> | undefined;

  const runPasses = async () => {
    do {
      again = false;
      if (paused || stopped || stalled) return;
      try {
        const result = await dispatchOutbox({
          db: options.db,
          queues: options.queues,
          now: options.now,
          ...(options.redispatchAfterMs !== undefined
            ? { redispatchAfterMs: options.redispatchAfterMs }
            : {}),
          ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
          ...(options.metrics ? { metrics: options.metrics } : {}),
        });
        if (failing) logger.info('outbox: handing out follow-ups again');
        for (const job of result.revived) {
          logger.warn(
            job,
            `outbox: follow-up job ${job.jobId} had failed (${job.reason}) with its ${job.rows} row(s) not consumed; handed out again`,
          );
        }
        failing = false;
        if (result.more) again = true;
      } catch (error) {
        if (error instanceof OutboxHandOutTimeout) {
          const pending = error.pending.then(
            () => undefined,
            () => undefined,
          );
          stalled = pending;
          void pending.then(() => {
            if (stalled === pending) stalled = undefined;
          });
        }
        if (!failing) {
          logger.warn(
            { reason: reasonOf(error) },
            'outbox: cannot hand out follow-ups; they wait in the outbox and are retried every poll',
          );
        }
        failing = true;
        // Wake-ups that came during the failed pass wait for the next poll, not a hot loop.
        again = false;
        return;
      }
    } while (again);
  };

  const wake = () => {
    if (stopped || paused) return;
    if (running) {
      again = true;
      return;
    }
    running = runPasses().finally(() => {
      running = undefined;
      if (again) wake();
    });
  };

  return {
    name: 'outbox-dispatcher',
    wake,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      wake();
    },
    async start() {
      stopped = false;
      outboxSignal.on('committed', wake);
      timer = setInterval(wake, pollMs);
      timer.unref();
      wake();
      logger.info({ pollMs }, 'outbox dispatcher running');
    },
    async stop() {
      stopped = true;
      outboxSignal.off('committed', wake);
      if (timer) clearInterval(timer);
      timer = undefined;
      if (running) {
        const waitMs = options.stopWaitMs ?? 5000;
        await Promise.race([
          running,
          new Promise((resolve) => setTimeout(resolve, waitMs).unref()),
        ]);
      }
    },
  };
}
