import { DEFAULT_POLLING_OPTIONS } from './polling.defaults.ts';

export { DEFAULT_POLLING_OPTIONS };

/** Options of sweeps and backfills. Defaults are merged in {@link resolvePollingOptions}. */
export interface PollingOptions {
  /**
   * How far before the last checkpoint a sweep starts again, in milliseconds: covers a service
   * clock running behind ours and items committed late upstream. @defaultValue 600000 (10 min)
   */
  sweepOverlapMs?: number;
  /** Items asked per list request. @defaultValue 100 */
  perPage?: number;
  /** Length of one backfill window, in milliseconds. @defaultValue 86400000 (1 day) */
  backfillWindowMs?: number;
  /**
   * Requests per second a backfill may take from the shared upstream budget (it never takes
   * more than `PAYSYNC_UPSTREAM_RPS` for the whole deployment). @defaultValue half of it
   */
  backfillRps?: number;
}

export type ResolvedPollingOptions = Required<Omit<PollingOptions, 'backfillRps'>> &
  Pick<PollingOptions, 'backfillRps'>;

/** The one place defaults are merged. */
export function resolvePollingOptions(options: PollingOptions = {}): ResolvedPollingOptions {
  const defined = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as PollingOptions;
  return { ...DEFAULT_POLLING_OPTIONS, ...defined };
}
