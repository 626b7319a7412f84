import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { LowBalanceThreshold } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import type { FetchDependencies } from '../reconcile/index.ts';
import type { UpstreamClient } from '../upstream/index.ts';

/** What the balance tasks need. */
export interface BalanceDependencies {
  readonly db: Kysely<Database>;
  readonly upstream: UpstreamClient;
  readonly logger: Logger;
  /** `live` or `sandbox`: snapshots and openings are kept per environment. */
  readonly environment: string;
  /** Used for the targeted poll of in-flight items; without it nothing is polled. */
  readonly fetch?: FetchDependencies;
  /** @defaultValue [] */
  readonly lowBalance?: readonly LowBalanceThreshold[];
  /**
   * How close to a snapshot's instant a booking counts as straddling it, in ms.
   * @defaultValue 15 minutes
   */
  readonly straddleWindowMs?: number;
  /** At most this many open items are polled to explain one snapshot. @defaultValue 200 */
  readonly maxInFlightPolls?: number;
  /** Who books an automatic opening balance. @defaultValue `paysync` */
  readonly bookedBy?: string;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
}

export type ResolvedBalanceDependencies = Required<Omit<BalanceDependencies, 'fetch'>> &
  Pick<BalanceDependencies, 'fetch'>;

/** What comparing with the ledger needs: no client, so cached balances can be compared offline. */
export type LedgerComparison = Omit<ResolvedBalanceDependencies, 'upstream' | 'now'>;

/** Merges the defaults, in this one place. */
export function resolveLedgerComparison(
  deps: Omit<BalanceDependencies, 'upstream' | 'now'>,
): LedgerComparison {
  return {
    ...deps,
    lowBalance: deps.lowBalance ?? [],
    straddleWindowMs: deps.straddleWindowMs ?? 15 * 60_000,
    maxInFlightPolls: deps.maxInFlightPolls ?? 200,
    bookedBy: deps.bookedBy ?? 'paysync',
  };
}

export function resolveBalanceDependencies(deps: BalanceDependencies): ResolvedBalanceDependencies {
  return { ...resolveLedgerComparison(deps), upstream: deps.upstream, now: deps.now };
}
