import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import { DEFAULT_POLL_GAPS } from './poll-gaps.defaults.ts';

export { DEFAULT_POLL_GAPS };

/** The janitor's schedule families: payment refunds follow the refunds' schedule. */
export type PollKind = 'payment_intent' | 'transfer' | 'refund';

/**
 * Gaps between the janitor's polls of a non-terminal item, per kind, in ms. The first poll is
 * due `gaps[0]` after the item's last change, each next one the next gap after the previous
 * one's due time; the last gap repeats for as long as the item stays non-terminal.
 */
export type PollPlan = Readonly<Record<PollKind, readonly number[]>>;

export const DEFAULT_POLL_PLAN: PollPlan = {
  payment_intent: DEFAULT_POLL_GAPS,
  transfer: DEFAULT_POLL_GAPS,
  refund: DEFAULT_POLL_GAPS,
};

export function pollKindOf(kind: LedgerResourceKind | string): PollKind {
  if (kind === 'payment_intent' || kind === 'transfer') return kind;
  return 'refund';
}

/** The gap after poll number `step` (0 = the first poll after a change). */
export function pollGap(plan: PollPlan, kind: string, step: number): number {
  const gaps = plan[pollKindOf(kind)];
  return gaps[Math.min(step, gaps.length - 1)] ?? DEFAULT_POLL_GAPS[0]!;
}

/**
 * The due time after the poll due at `previousDue` (step `step` done). Anchored on the due
 * time, not the run time, so the documented times hold; a janitor that was down catches up
 * with one poll, not a burst, because a due time already past is pushed to `now` + gap.
 */
export function nextPollDue(
  plan: PollPlan,
  kind: string,
  step: number,
  previousDue: Date,
  now: Date,
): Date {
  const gap = pollGap(plan, kind, step + 1);
  const anchored = previousDue.getTime() + gap;
  return new Date(anchored > now.getTime() ? anchored : now.getTime() + gap);
}
