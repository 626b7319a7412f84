import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { openInboxBacklog } from '../inbox/index.ts';
import { soleTenantMetrics, webhookBacklog, type TenantMetrics } from '../metrics/index.ts';
import type { Logger } from '../logger.ts';
import { reasonOf } from '../error-reason.ts';

/**
 * The backlog falls back under this share of the limit before intake resumes, so a backlog
 * hovering at the limit does not flip the receiver (and its alert) on and off every second.
 */
export const RESUME_SHARE = 0.9;

export interface BacklogGateOptions {
  readonly db: Kysely<Database>;
  /** Open inbox rows at which intake stops (`PAYSYNC_RECEIVER_MAX_BACKLOG`). */
  readonly maxBacklog: number;
  /** How often the backlog is counted again. @defaultValue 1000 */
  readonly refreshMs?: number;
  readonly logger: Logger;
  /** Told when intake stops (the backlog reached the limit); must not throw. */
  readonly onFull?: (backlog: number) => Promise<void>;
  /** Told after every count, with the state it left; must not throw. */
  readonly onCounted?: (backlog: number, full: boolean) => Promise<void>;
  /**
   * The metrics handle of the tenant whose inbox this is: in a process serving several,
   * `paysync_webhook_backlog` carries the tenant's label. @defaultValue the handle of a process
   * of one tenant (no label)
   */
  readonly metrics?: TenantMetrics;
}

export interface BacklogGate {
  /** True while webhooks must be refused: the backlog reached the limit and has not drained. */
  isFull(): boolean;
  /** The backlog as last counted, plus the rows stored since (capped at the limit). */
  readonly backlog: number;
  /** New inbox rows this receiver stored: the backlog grows between two counts. */
  noteStored(rows: number): void;
  /** Counts once (so the state is known before the first request), then on the interval. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The open inbox backlog as the receiver sees it, without a query per request: counted every
 * `refreshMs` by the inbox's own bounded count (at most `maxBacklog` rows read), and moved up
 * by the rows this receiver stores in between; only the count moves it down (the workers,
 * other processes, close the rows). Full at the limit; open again under {@link RESUME_SHARE}
 * of it.
 */
export function createBacklogGate(options: BacklogGateOptions): BacklogGate {
  const { maxBacklog, logger } = options;
  const metrics = options.metrics ?? soleTenantMetrics;
  // At least 1, so a limit of 1 still resumes once the inbox is empty.
  const resumeBelow = Math.max(1, Math.floor(maxBacklog * RESUME_SHARE));
  let backlog = 0;
  let full = false;
  let timer: NodeJS.Timeout | undefined;
  let counting: Promise<void> | undefined;

  const settle = async () => {
    if (!full && backlog >= maxBacklog) {
      full = true;
      logger.warn(
        { backlog, maxBacklog, resumeBelow },
        `webhook backlog at ${backlog} open inbox rows (PAYSYNC_RECEIVER_MAX_BACKLOG=${maxBacklog}): answering 503 until it drains below ${resumeBelow}`,
      );
      await options.onFull?.(backlog);
    } else if (full && backlog < resumeBelow) {
      full = false;
      logger.info({ backlog, maxBacklog }, 'webhook backlog drained; taking webhooks again');
    }
  };

  const count = async () => {
    try {
      backlog = await openInboxBacklog(options.db, maxBacklog);
      metrics.set(webhookBacklog, {}, backlog);
    } catch (error) {
      // Keep the last state: a database that cannot count cannot store either (503 anyway).
      logger.warn({ reason: reasonOf(error) }, 'could not count the webhook backlog');
      return;
    }
    await settle();
    await options.onCounted?.(backlog, full);
  };

  const refresh = () => {
    counting ??= count().finally(() => {
      counting = undefined;
    });
    return counting;
  };

  return {
    isFull: () => full,
    get backlog() {
      return backlog;
    },
    noteStored(rows) {
      if (rows <= 0) return;
      backlog = Math.min(maxBacklog, backlog + rows);
      metrics.set(webhookBacklog, {}, backlog);
      if (!full && backlog >= maxBacklog) void settle();
    },
    async start() {
      await refresh();
      timer = setInterval(() => void refresh(), options.refreshMs ?? 1000);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await counting;
    },
  };
}
