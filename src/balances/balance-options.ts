import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import type { SyncDependencies } from '../reconcile/index.ts';
import type { UpstreamClient } from '../upstream/index.ts';

/** A low-balance threshold: warn when `accountType` in `currency` goes under `minimum`. */
export interface LowBalanceThreshold {
  readonly accountType: string;
  readonly currency: string;
  /** Minor units. */
  readonly minimum: number;
}

/** What the balance tasks need. */
export interface BalanceDependencies {
  readonly db: Kysely<Database>;
  readonly upstream: UpstreamClient;
  readonly logger: Logger;
  /** `live` or `sandbox`: snapshots and openings are kept per environment. */
  readonly environment: string;
  /** Used for the targeted poll of in-flight items; without it nothing is polled. */
  readonly sync?: SyncDependencies;
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
  /** @defaultValue `() => new Date()` */
  readonly now?: () => Date;
}

export type ResolvedBalanceDependencies = Required<Omit<BalanceDependencies, 'sync'>> &
  Pick<BalanceDependencies, 'sync'>;

/** Merges the defaults, in this one place. */
export function resolveBalanceDependencies(deps: BalanceDependencies): ResolvedBalanceDependencies {
  return {
    ...deps,
    lowBalance: deps.lowBalance ?? [],
    straddleWindowMs: deps.straddleWindowMs ?? 15 * 60_000,
    maxInFlightPolls: deps.maxInFlightPolls ?? 200,
    bookedBy: deps.bookedBy ?? 'paysync',
    now: deps.now ?? (() => new Date()),
  };
}

/**
 * Parses `PAYSYNC_LOW_BALANCE`: `transfer:XOF:1000000,transfer-irt:EUR:50000`. Returns the
 * thresholds, or a one-line reason naming the bad entry.
 */
export function parseLowBalanceThresholds(
  text: string | undefined,
): { thresholds: LowBalanceThreshold[] } | { problem: string } {
  const thresholds: LowBalanceThreshold[] = [];
  for (const entry of (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^(collection|transfer|transfer-irt|cross-border):([A-Za-z]{3}):(\d{1,15})$/.exec(
      entry,
    );
    if (!match) {
      return {
        problem: `"${entry}" is not <account type>:<currency>:<minor units>, e.g. transfer:XOF:1000000 (account types: collection, transfer, transfer-irt, cross-border)`,
      };
    }
    thresholds.push({
      accountType: match[1]!,
      currency: match[2]!.toUpperCase(),
      minimum: Number(match[3]),
    });
  }
  return { thresholds };
}
