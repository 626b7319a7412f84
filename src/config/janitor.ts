import { DEFAULT_POLL_GAPS } from '../ledger/poll-gaps.defaults.ts';
import { cronOrOff, duration, durationList, positiveInt, type Parsed } from './fields.ts';

// Re-polling of non-terminal items and stuck detection (docs/processing.md).

export const JANITOR_VARIABLES = {
  /** When the janitor queues due polls (cron), or `off`. @defaultValue every minute */
  PAYSYNC_JANITOR_CRON: cronOrOff('* * * * *'),
  /** Most polls one janitor run queues. @defaultValue 5000 */
  PAYSYNC_JANITOR_BATCH: positiveInt(5000, 1_000_000),
  /** Gaps between polls of a non-terminal item, the last one repeating. @defaultValue `1m,5m,15m,1h,6h,24h` (`DEFAULT_POLL_GAPS`, src/ledger) */
  PAYSYNC_JANITOR_SCHEDULE: durationList,
  /** The same, for payment intents only. @defaultValue `PAYSYNC_JANITOR_SCHEDULE` */
  PAYSYNC_JANITOR_SCHEDULE_INTENTS: durationList,
  /** The same, for transfers only. @defaultValue `PAYSYNC_JANITOR_SCHEDULE` */
  PAYSYNC_JANITOR_SCHEDULE_TRANSFERS: durationList,
  /** The same, for refunds and payment refunds. @defaultValue `PAYSYNC_JANITOR_SCHEDULE` */
  PAYSYNC_JANITOR_SCHEDULE_REFUNDS: durationList,
  /** A transfer non-terminal this long after creation is `stuck`. @defaultValue `24h` */
  PAYSYNC_STUCK_TRANSFER_AFTER: duration('24h'),
  /** A payment intent non-terminal this long after creation is `stuck`. @defaultValue `48h` */
  PAYSYNC_STUCK_INTENT_AFTER: duration('48h'),
  /** A refund non-terminal this long after creation is `stuck`. @defaultValue `72h` */
  PAYSYNC_STUCK_REFUND_AFTER: duration('72h'),
  /** A refund in `pending_manual` this long after creation is `stuck`. @defaultValue `7d` */
  PAYSYNC_STUCK_PENDING_MANUAL_AFTER: duration('7d'),
};

export interface JanitorSettings {
  /** @defaultValue `* * * * *`; `off` turns the janitor off */
  readonly cron: string;
  /** @defaultValue 5000 */
  readonly batchSize: number;
  /** Gaps between polls in ms, per kind; the last one repeats. @defaultValue 1 m, 5 m, 15 m, 1 h, 6 h, 24 h */
  readonly scheduleMs: {
    readonly payment_intent: readonly number[];
    readonly transfer: readonly number[];
    readonly refund: readonly number[];
  };
  /** Age (from creation) past which a non-terminal item is `stuck`, in ms. */
  readonly stuckAfterMs: {
    /** @defaultValue 48 h */
    readonly payment_intent: number;
    /** @defaultValue 24 h */
    readonly transfer: number;
    /** @defaultValue 72 h */
    readonly refund: number;
    /** A refund in `pending_manual`. @defaultValue 7 days */
    readonly pending_manual: number;
  };
}

/** The gaps default to the ledger's `DEFAULT_POLL_GAPS` (src/ledger/poll-gaps.defaults.ts). */
export function janitorSettings(e: Parsed<typeof JANITOR_VARIABLES>): JanitorSettings {
  return Object.freeze({
    cron: e.PAYSYNC_JANITOR_CRON,
    batchSize: e.PAYSYNC_JANITOR_BATCH,
    scheduleMs: Object.freeze({
      payment_intent:
        e.PAYSYNC_JANITOR_SCHEDULE_INTENTS ?? e.PAYSYNC_JANITOR_SCHEDULE ?? DEFAULT_POLL_GAPS,
      transfer:
        e.PAYSYNC_JANITOR_SCHEDULE_TRANSFERS ?? e.PAYSYNC_JANITOR_SCHEDULE ?? DEFAULT_POLL_GAPS,
      refund: e.PAYSYNC_JANITOR_SCHEDULE_REFUNDS ?? e.PAYSYNC_JANITOR_SCHEDULE ?? DEFAULT_POLL_GAPS,
    }),
    stuckAfterMs: Object.freeze({
      payment_intent: e.PAYSYNC_STUCK_INTENT_AFTER,
      transfer: e.PAYSYNC_STUCK_TRANSFER_AFTER,
      refund: e.PAYSYNC_STUCK_REFUND_AFTER,
      pending_manual: e.PAYSYNC_STUCK_PENDING_MANUAL_AFTER,
    }),
  });
}
