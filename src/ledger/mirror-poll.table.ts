import type { Generated, Selectable } from 'kysely';

/**
 * Polling and fetch bookkeeping for one mirrored item (migration 0006). Kept beside the mirror
 * tables rather than in them, so the janitor's due query reads one narrow indexed table.
 */
export interface MirrorPollTable {
  /** A ledger resource kind: payment_intent, transfer, refund, payment_refund. */
  resource_kind: string;
  resource_id: string;
  /** Transfer reference or purchase reference, so a sync known only by it finds the row. */
  reference: string | null;
  /** When the janitor polls next, UTC ms; null while the item is terminal. */
  next_poll_at: string | null;
  /** Polls asked for since the last change; picks the next gap of the schedule. */
  poll_step: Generated<number>;
  /** Set when the janitor queued a poll, cleared by a fetch that started after it. */
  poll_requested_at: string | null;
  /** The open `stuck` discrepancy, resolved when the item settles. */
  stuck_discrepancy_id: number | null;
  /** Highest inbox id received before the last applied fetch began (see docs/processing.md). */
  covered_inbox_id: Generated<number>;
}

export type MirrorPollRow = Selectable<MirrorPollTable>;
