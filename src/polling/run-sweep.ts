import type { Kysely } from 'kysely';
import type { TraceContext } from '../tracing/index.ts';
import type { Logger } from 'pino';
import type { Database } from '../db/index.ts';
import type { AllExpectedOption } from '../expectations/index.ts';
import { reasonOf } from '../error-reason.ts';
import { UpstreamError, type UpstreamClient } from '../upstream/index.ts';
import { applyWindow } from './apply-window.ts';
import { advanceCheckpoint, readCheckpoint } from './checkpoint.repository.ts';
import { countingClient } from './counting-client.ts';
import { LIST_STREAMS, SWEEP_KINDS, type SweepKind } from './list-streams.ts';
import { addTally, emptyTally, type PageTally } from './page-tally.ts';
import { soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';
import { missedWebhooksTotal } from './polling-metrics.ts';
import { resolvePollingOptions, type PollingOptions } from './polling-options.ts';
import type { RunHandle } from '../runs/index.ts';

export interface SweepDependencies {
  readonly db: Kysely<Database>;
  readonly upstream: UpstreamClient;
  readonly logger: Logger;
  /** `live` or `sandbox`: checkpoints are kept per environment. */
  readonly environment: string;
  /**
   * Whether alerts and receipts of what the sweep changed go to the outbox (with each page's
   * commit). @defaultValue true
   */
  readonly followUps?: boolean;
  /** `PAYSYNC_EXPECTATIONS_ALL_EXPECTED`, for the matching of the items a page settles. @defaultValue `off` */
  readonly allExpected?: AllExpectedOption;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
  /** The tick's span: each page the sweep commits is a span under it (docs/observability.md). */
  readonly trace?: TraceContext | undefined;
  /**
   * The metrics handle of the tenant whose books these are: in a process serving several, the
   * count of missed webhooks carries the tenant's label. @defaultValue the handle of a process
   * of one tenant (no label)
   */
  readonly metrics?: TenantMetrics;
}

export interface SweepRequest extends PollingOptions {
  /** @defaultValue both */
  readonly kinds?: readonly SweepKind[];
  /** Start here instead of at the checkpoint minus the overlap. */
  readonly since?: Date;
}

export interface StreamSweepReport {
  readonly kind: SweepKind;
  readonly from: string;
  readonly to: string;
  readonly tally: PageTally;
  readonly pages: number;
  readonly upstreamCalls: number;
  /** The checkpoint committed at the end (exclusive). */
  readonly checkpoint: string;
  /** Set when the stream was cut short (throttling, timeouts, service errors). */
  readonly cutShort?: string;
}

/** The checkpoint row of one swept stream in one environment. */
export function sweepStreamKey(kind: SweepKind, environment: string): string {
  return `sweep:${LIST_STREAMS[kind].ledgerKind}:${environment}`;
}

/**
 * One sweep: for each list, walk `[checkpoint − overlap, now]` and apply every item through
 * the sync path (see docs/processing.md for why a creation-time window is enough). A stream
 * that meets an error a later try may get past (429, 5xx, timeout) keeps what it committed
 * and reports `cutShort`: the run is partial and the next one resumes from the checkpoint.
 * Other errors (credentials, contract) are thrown.
 */
export async function runSweep(
  deps: SweepDependencies,
  request: SweepRequest = {},
  run?: RunHandle,
): Promise<StreamSweepReport[]> {
  const options = resolvePollingOptions(request);
  const now = deps.now;
  const metrics = deps.metrics ?? soleTenantMetrics;
  const reports: StreamSweepReport[] = [];
  for (const kind of request.kinds ?? SWEEP_KINDS) {
    const stream = LIST_STREAMS[kind];
    const key = sweepStreamKey(kind, deps.environment);
    const checkpoint = await readCheckpoint(deps.db, key);
    const to = now();
    const from =
      request.since ??
      new Date(
        (checkpoint ? Date.parse(checkpoint.position) : to.getTime()) - options.sweepOverlapMs,
      );
    if (!checkpoint && request.since === undefined) {
      // The first sweep of a stream pins where sweeping starts, before it reads anything: if
      // it is cut short, the next sweep resumes here instead of at its own "now − overlap".
      await advanceCheckpoint(deps.db, {
        stream: key,
        position: from.toISOString(),
        at: to.toISOString(),
      });
      // Where sweeping began, kept apart (written once, never advanced): with the checkpoint it
      // bounds what the sweeps vouch for (see sweep-coverage.ts).
      await advanceCheckpoint(deps.db, {
        stream: `${key}:origin`,
        position: from.toISOString(),
        at: to.toISOString(),
      });
    }
    // A --since later than the checkpoint leaves a gap behind it: such a walk must not move
    // the stream's checkpoint past the gap, or the gap would never be swept.
    const contiguous =
      request.since === undefined ||
      (checkpoint !== undefined && request.since.getTime() <= Date.parse(checkpoint.position));
    const calls = { calls: 0 };
    let pages = 0;
    const tally = emptyTally();
    // What `paysync runs` shows if nothing gets committed: the checkpoint as it stands.
    let position = contiguous && checkpoint ? checkpoint.position : from.toISOString();
    let cutShort: string | undefined;
    try {
      const result = await applyWindow({
        db: deps.db,
        client: countingClient(deps.upstream, calls),
        stream,
        from,
        to,
        perPage: options.perPage,
        checkpointStream: contiguous ? key : `${key}:since`,
        via: 'sweep',
        followUps: deps.followUps ?? true,
        environment: deps.environment,
        ...(deps.allExpected !== undefined ? { allExpected: deps.allExpected } : {}),
        now,
        trace: deps.trace,
        onPage: () => {
          pages += 1;
          run?.count({ pagesRead: 1, upstreamCalls: 0 });
        },
        onCommit: async (commit) => {
          position = commit.position;
          addTally(tally, commit.tally);
          run?.count({
            itemsSeen: commit.tally.seen,
            itemsChanged: commit.tally.new + commit.tally.changed,
            itemsMissed: commit.tally.missed,
          });
          if (commit.tally.missed > 0) {
            metrics.inc(missedWebhooksTotal, { kind: stream.ledgerKind }, commit.tally.missed);
          }
        },
      });
      position = result.position;
    } catch (error) {
      if (!(error instanceof UpstreamError && error.retryable)) throw error;
      cutShort = `${kind}: ${reasonOf(error)}`;
      run?.cutShort(cutShort);
    } finally {
      run?.count({ upstreamCalls: calls.calls });
      run?.checkpoint(
        [...reports.map((r) => `${r.kind} ${r.checkpoint}`), `${kind} ${position}`].join(', '),
      );
    }
    reports.push({
      kind,
      from: from.toISOString(),
      to: to.toISOString(),
      tally,
      pages,
      upstreamCalls: calls.calls,
      checkpoint: position,
      ...(cutShort ? { cutShort } : {}),
    });
  }
  return reports;
}
