import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/index.ts';
import type { AllExpectedOption } from '../expectations/index.ts';
import type { Queues } from '../queues/index.ts';
import type { PollPlan } from '../ledger/index.ts';
import type { UpstreamClient } from '../upstream/index.ts';
import type { Clock } from '../lifecycle/index.ts';
import { soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';
import type { CredentialGuard } from './credential-guard.ts';
import type { WindowReadSettings } from './window-read-settings.ts';
import type { TraceContext } from '../tracing/index.ts';

/**
 * What a sync needs; one set per worker process, shared by its jobs. Defaults are merged in
 * {@link resolveSyncDependencies}.
 */
export interface SyncDependencies {
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  readonly upstream: UpstreamClient;
  readonly logger: Logger;
  readonly credentials: CredentialGuard;
  /** How far back a transfer known only by id is searched for, in hours. */
  readonly transferSearchHours: number;
  /** Tries before a 404 becomes `unknown_upstream_resource`. @defaultValue 3 */
  readonly notFoundAttempts?: number;
  /** `live` or `sandbox` (`PAYSYNC_ENVIRONMENT`): stamped on the relay events a change emits. */
  readonly environment: string;
  /** The clock, resolved where the process is assembled (no default: STYLE 12). */
  readonly now: Clock;
  /**
   * Fetches a process's sync batches run at once (the upstream client's concurrency, so a
   * fetch that has a slot is not queued again inside the client). @defaultValue 8
   */
  readonly fetchConcurrency?: number;
  /**
   * Which settled items no expectation claims are `unexpected` breaks
   * (`PAYSYNC_EXPECTATIONS_ALL_EXPECTED`). @defaultValue `{ allExpected: 'off' }`
   */
  readonly expectations?: { readonly allExpected: AllExpectedOption };
  /** The janitor's schedule, for the next poll set when a fetch changes an item. @defaultValue `DEFAULT_POLL_PLAN` */
  readonly pollPlan?: PollPlan;
  /**
   * The tenant whose books these are, in a process serving several (docs/tenants.md): named in
   * the spans of this work. @defaultValue none (a process of one tenant)
   */
  readonly tenant?: string;
  /**
   * The tenant's metrics handle: in a process serving several, the counters and histograms this
   * work moves carry the tenant's label. @defaultValue the handle of a process of one tenant (no
   * label)
   */
  readonly metrics?: TenantMetrics;
  /**
   * Window reads before a batch's per-item reads (`PAYSYNC_WINDOW_READS`): their settings, or
   * `false` to read every item by itself. @defaultValue `DEFAULT_WINDOW_READS`
   */
  readonly windowReads?: WindowReadSettings | false;
  /**
   * The span this work runs in (set by `traced`, src/tracing): the spans it opens, the jobs it
   * enqueues and the follow-ups it books continue that trace. @defaultValue none: a trace each
   */
  readonly trace?: TraceContext | undefined;
}

export type ResolvedSyncDependencies = SyncDependencies &
  Required<Pick<SyncDependencies, 'notFoundAttempts' | 'expectations' | 'metrics'>>;

/** Fetch slots of a process's sync batches unless configured (`PAYSYNC_UPSTREAM_CONCURRENCY`). */
export const DEFAULT_FETCH_CONCURRENCY = 8;

export const DEFAULT_SYNC_DEPENDENCIES = {
  notFoundAttempts: 3,
  expectations: { allExpected: 'off' },
  metrics: soleTenantMetrics,
} as const satisfies Partial<SyncDependencies>;

/** The one place the defaults are merged; resolving twice changes nothing. */
export function resolveSyncDependencies(deps: SyncDependencies): ResolvedSyncDependencies {
  const defined = Object.fromEntries(
    Object.entries(deps).filter(([, value]) => value !== undefined),
  ) as SyncDependencies;
  return {
    ...DEFAULT_SYNC_DEPENDENCIES,
    ...defined,
  };
}

/** How far back a lookup by reference looks: the list endpoints filter on `createdAt`. */
export const REFERENCE_LOOKBACK_MS = 400 * 24 * 3_600_000;

/**
 * Slack on the upper bound of list windows, so an item stamped by a service clock running
 * ahead of ours is still inside `to`.
 */
export const CLOCK_SKEW_MS = 3_600_000;

/** What fetching one resource's state needs: no queues, so a CLI command can poll too. */
export type FetchDependencies = Pick<
  ResolvedSyncDependencies,
  'db' | 'upstream' | 'now' | 'transferSearchHours'
>;
