import { z } from 'zod';
import { DEFAULT_POLLING_OPTIONS } from '../polling/polling.defaults.ts';
import { cronOrOff, optionalPositiveInt, positiveInt, type Parsed } from './fields.ts';

// Sweeps, backfills and scheduled-run records (docs/processing.md, "Sweeps and backfill";
// docs/cli.md `runs`, `sweep`, `backfill`).

export const POLLING_VARIABLES = {
  /** When the list sweep for missed webhooks runs (cron or `off`). @defaultValue every 5 minutes */
  PAYSYNC_SWEEP_CRON: cronOrOff('*/5 * * * *', 'every 5 minutes'),
  /** How far before its last checkpoint a sweep starts again, in minutes. @defaultValue 10 (`DEFAULT_POLLING_OPTIONS`) */
  PAYSYNC_SWEEP_OVERLAP_MINUTES: optionalPositiveInt(7 * 24 * 60),
  /** Items asked per list request by sweeps and backfills. @defaultValue 100 (`DEFAULT_POLLING_OPTIONS`) */
  PAYSYNC_LIST_PER_PAGE: optionalPositiveInt(1000),
  /** Payment-refund ids a sweep may ask about to find lost ones; 0 turns it off. @defaultValue 50 */
  PAYSYNC_PAYMENT_REFUND_PROBES: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .max(10_000, 'must be at most 10000')
    .default(50),
  /** Length of one backfill window, in hours. @defaultValue 24 (`DEFAULT_POLLING_OPTIONS`) */
  PAYSYNC_BACKFILL_WINDOW_HOURS: optionalPositiveInt(24 * 31),
  /** Requests per second a backfill may take of the shared budget. @defaultValue half of PAYSYNC_UPSTREAM_RPS */
  PAYSYNC_BACKFILL_RPS: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(10_000, 'must be at most 10000')
      .optional(),
  ),
  /** A running scheduled run with no heartbeat this long is dead; the next run marks it failed. @defaultValue 120 */
  PAYSYNC_RUN_STALE_SECONDS: positiveInt(120, 86_400),
};

export interface PollingSettings {
  /** A cron expression or `off`. @defaultValue `*\/5 * * * *` */
  readonly sweepCron: string;
  /** @defaultValue 600000 */
  readonly sweepOverlapMs: number;
  /** @defaultValue 100 */
  readonly perPage: number;
  /** Payment-refund status requests a sweep may spend on ids it does not know. @defaultValue 50 */
  readonly paymentRefundProbes: number;
  /** @defaultValue 86400000 */
  readonly backfillWindowMs: number;
  /** @defaultValue half of `upstream.rps` (at least 1) */
  readonly backfillRps: number;
  /** @defaultValue 120000 */
  readonly staleRunAfterMs: number;
}

/**
 * Sweep overlap, page size and backfill window default to the polling component's
 * `DEFAULT_POLLING_OPTIONS` (src/polling/polling.defaults.ts, a leaf the configuration may read).
 */
export function pollingSettings(
  e: Parsed<typeof POLLING_VARIABLES>,
  upstreamRps: number,
): PollingSettings {
  return Object.freeze({
    sweepCron: e.PAYSYNC_SWEEP_CRON,
    sweepOverlapMs:
      e.PAYSYNC_SWEEP_OVERLAP_MINUTES === undefined
        ? DEFAULT_POLLING_OPTIONS.sweepOverlapMs
        : e.PAYSYNC_SWEEP_OVERLAP_MINUTES * 60_000,
    perPage: e.PAYSYNC_LIST_PER_PAGE ?? DEFAULT_POLLING_OPTIONS.perPage,
    paymentRefundProbes: e.PAYSYNC_PAYMENT_REFUND_PROBES,
    backfillWindowMs:
      e.PAYSYNC_BACKFILL_WINDOW_HOURS === undefined
        ? DEFAULT_POLLING_OPTIONS.backfillWindowMs
        : e.PAYSYNC_BACKFILL_WINDOW_HOURS * 3_600_000,
    backfillRps: e.PAYSYNC_BACKFILL_RPS ?? Math.max(1, Math.floor(upstreamRps / 2)),
    staleRunAfterMs: e.PAYSYNC_RUN_STALE_SECONDS * 1000,
  });
}
