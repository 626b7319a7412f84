import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/index.ts';
import type { AllExpectedOption } from '../expectations/index.ts';
import { reasonOf } from '../error-reason.ts';
import type { RequestRateLimiter, UpstreamClient } from '../upstream/index.ts';
import { UpstreamError } from '../upstream/index.ts';
import { applyWindow } from './apply-window.ts';
import { deleteCheckpoint, readCheckpoint } from './checkpoint.repository.ts';
import { countingClient } from './counting-client.ts';
import { LIST_STREAMS, SWEEP_KINDS, type SweepKind } from './list-streams.ts';
import { addTally, emptyTally, type PageTally } from './page-tally.ts';
import { resolvePollingOptions, type PollingOptions } from './polling-options.ts';
import type { RunHandle } from '../runs/index.ts';

export interface BackfillDependencies {
  readonly db: Kysely<Database>;
  readonly upstream: UpstreamClient;
  readonly logger: Logger;
  readonly environment: string;
  /** The backfill's own share of the shared upstream budget, on top of the shared limit. */
  readonly limiter?: RequestRateLimiter;
  /** `PAYSYNC_EXPECTATIONS_ALL_EXPECTED`, for the matching of the items a page settles. @defaultValue `off` */
  readonly allExpected?: AllExpectedOption;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
  /** Called as the backfill goes (windows started and finished, pages committed). */
  readonly onProgress?: (event: BackfillProgress) => void;
}

export interface BackfillRequest extends PollingOptions {
  /** Inclusive bounds on `createdAt`. */
  readonly from: Date;
  readonly to: Date;
  /** @defaultValue both */
  readonly kinds?: readonly SweepKind[];
  /** Forget what an earlier run of the same backfill committed and start over. */
  readonly restart?: boolean;
  /** Read and report, write nothing (no ledger rows, no checkpoint). */
  readonly dryRun?: boolean;
}

export interface BackfillProgress {
  readonly type: 'window-start' | 'commit' | 'window-done';
  readonly kind: SweepKind;
  /** 1-based index of the window among all windows of all kinds. */
  readonly window: number;
  readonly windows: number;
  readonly windowFrom: string;
  readonly windowTo: string;
  /** Windows already committed by an earlier run of this backfill. */
  readonly skippedWindows: number;
  /** Items read by this run so far. */
  readonly items: number;
  /** Items of this window read by this run so far. */
  readonly windowItems: number;
  /** Share of this window committed, 0..1 (by creation time). */
  readonly windowDone: number;
}

export interface BackfillReport {
  /** This run's reads and writes. */
  readonly thisRun: PageTally;
  /** The whole backfill, earlier interrupted runs included. */
  readonly total: PageTally;
  readonly pages: number;
  readonly upstreamCalls: number;
  /** Windows an earlier run had already committed, not read again. */
  readonly skippedWindows: number;
  /** Set when the service stopped answering (429 storm, 5xx): run the command again. */
  readonly cutShort?: string;
}

/** The checkpoint row of one backfill: kind, environment and the exact bounds asked. */
export function backfillStreamKey(
  kind: SweepKind,
  environment: string,
  from: Date,
  to: Date,
): string {
  return `backfill:${LIST_STREAMS[kind].ledgerKind}:${environment}:${from.toISOString()}..${to.toISOString()}`;
}

function storedTally(detail: unknown): PageTally {
  const total = (detail as { total?: PageTally } | null)?.total;
  return total ? addTally(emptyTally(), total) : emptyTally();
}

/**
 * Loads history oldest first, one window (default a day) at a time, applying list pages as a
 * sweep does. Resumable: each commit carries the checkpoint, so after any crash the same
 * request continues from the last committed page of the window it was in and reads no
 * committed window again.
 */
export async function runBackfill(
  deps: BackfillDependencies,
  request: BackfillRequest,
  run?: RunHandle,
): Promise<BackfillReport> {
  if (!(request.from.getTime() <= request.to.getTime())) {
    throw new RangeError('backfill: the request starts (from) after it ends (to)');
  }
  const options = resolvePollingOptions(request);
  const now = deps.now;
  const kinds = request.kinds ?? SWEEP_KINDS;
  // `to` is inclusive: a range of whole windows plus its closing instant (`--to` a midnight)
  // is that many windows, the last one ending on `to`, never one more window of 1 ms.
  const windowsPerKind = Math.max(
    1,
    Math.ceil((request.to.getTime() - request.from.getTime()) / options.backfillWindowMs),
  );
  const windows = windowsPerKind * kinds.length;
  const thisRun = emptyTally();
  const total = emptyTally();
  const calls = { calls: 0 };
  const client = countingClient(deps.upstream, calls, deps.limiter);
  let pages = 0;
  let skippedWindows = 0;
  let cutShort: string | undefined;

  try {
    for (const [kindIndex, kind] of kinds.entries()) {
      const key = backfillStreamKey(kind, deps.environment, request.from, request.to);
      if (request.restart && !request.dryRun) await deleteCheckpoint(deps.db, key);
      const checkpoint = request.restart ? undefined : await readCheckpoint(deps.db, key);
      let baseline = storedTally(checkpoint?.detail);
      let position = checkpoint ? Date.parse(checkpoint.position) : request.from.getTime();
      for (let index = 0; index < windowsPerKind; index += 1) {
        const windowStart = request.from.getTime() + index * options.backfillWindowMs;
        const windowEnd =
          index === windowsPerKind - 1
            ? request.to.getTime()
            : windowStart + options.backfillWindowMs - 1;
        const progress = {
          kind,
          window: kindIndex * windowsPerKind + index + 1,
          windows,
          windowFrom: new Date(windowStart).toISOString(),
          windowTo: new Date(windowEnd).toISOString(),
        };
        if (position > windowEnd) {
          skippedWindows += 1;
          continue;
        }
        let windowItems = 0;
        const share = (at: number) =>
          Math.min(1, Math.max(0, (at - windowStart) / (windowEnd + 1 - windowStart)));
        deps.onProgress?.({
          type: 'window-start',
          ...progress,
          skippedWindows,
          items: thisRun.seen,
          windowItems,
          windowDone: share(position),
        });
        const base = baseline;
        const result = await applyWindow({
          db: deps.db,
          client,
          stream: LIST_STREAMS[kind],
          from: new Date(Math.max(position, windowStart)),
          to: new Date(windowEnd),
          perPage: options.perPage,
          checkpointStream: key,
          via: 'sweep',
          environment: deps.environment,
          ...(deps.allExpected !== undefined ? { allExpected: deps.allExpected } : {}),
          now,
          ...(request.dryRun ? { dryRun: true } : {}),
          detailOf: (committed) => ({ total: addTally(structuredClone(base), committed) }),
          onPage: () => {
            pages += 1;
          },
          onCommit: (commit) => {
            addTally(thisRun, commit.tally);
            windowItems += commit.tally.seen;
            run?.count({
              itemsSeen: commit.tally.seen,
              itemsChanged: commit.tally.new + commit.tally.changed,
            });
            run?.checkpoint(`${kind} ${commit.position}`);
            deps.onProgress?.({
              type: 'commit',
              ...progress,
              skippedWindows,
              items: thisRun.seen,
              windowItems,
              windowDone: share(Date.parse(commit.position)),
            });
          },
        });
        baseline = addTally(structuredClone(base), result.tally);
        position = windowEnd + 1;
        deps.onProgress?.({
          type: 'window-done',
          ...progress,
          skippedWindows,
          items: thisRun.seen,
          windowItems,
          windowDone: 1,
        });
      }
      addTally(total, baseline);
    }
  } catch (error) {
    if (!(error instanceof UpstreamError && error.retryable)) throw error;
    cutShort = reasonOf(error);
    run?.cutShort(cutShort);
  } finally {
    run?.count({ pagesRead: pages, upstreamCalls: calls.calls });
  }
  deps.logger.debug({ pages, calls: calls.calls }, 'backfill finished');
  return {
    thisRun,
    total: request.dryRun ? thisRun : total,
    pages,
    upstreamCalls: calls.calls,
    skippedWindows,
    ...(cutShort ? { cutShort } : {}),
  };
}
