import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { matchSettledItems, type AllExpectedOption } from '../expectations/index.ts';
import type { ApplyOutcome } from '../ledger/index.ts';
import { notifyOutbox } from '../outbox/index.ts';
import { emitRelayEvents, itemEventsOf, notifyRelay } from '../relay/index.ts';
import { traceparentOf, type TraceContext } from '../tracing/index.ts';
import { addFollowUps, followUpsFor, justSettled } from './follow-ups.ts';

/** Whose books these are and how they are matched: the same for every booking of a process. */
export interface ConsequenceSettings {
  /** `live` or `sandbox` (`PAYSYNC_ENVIRONMENT`): stamped on the relay events. */
  readonly environment: string;
  /**
   * Which settled items no expectation claims are `unexpected` breaks
   * (`PAYSYNC_EXPECTATIONS_ALL_EXPECTED`).
   */
  readonly allExpected: AllExpectedOption;
  /**
   * Write the follow-ups (alerts, receipts) of what changed to the outbox. Off only for a
   * backfill asked not to (`paysync backfill` without `--follow-ups`). @defaultValue true
   */
  readonly followUps?: boolean;
  /**
   * The span of the booking: its follow-ups and relay deliveries continue that trace
   * (docs/observability.md).
   */
  readonly trace?: TraceContext | undefined;
}

/** What {@link bookConsequences} wrote, for {@link announceConsequences} after the commit. */
export interface Consequences {
  /** New outbox rows (alerts, receipts). */
  readonly followUps: number;
  /** Relay deliveries added. */
  readonly deliveries: number;
}

/**
 * The one path from a booking to its consequences (STYLE 15, docs/processing.md "One path from
 * a booking to its consequences"): whichever path applied the outcomes (a sync batch, a window
 * read, a sweep's or a backfill's page), inside the transaction that applied them, in this
 * order:
 *
 * 1. follow-ups: an alert for a transfer that has just failed or a discrepancy, a receipt for
 *    an item that has just settled;
 * 2. expectations: items that have just settled pay the expectations they match;
 * 3. relay events: one per change, with a delivery per subscribed endpoint.
 *
 * Everything commits with the booking or not at all. Call {@link announceConsequences} with the
 * result once the transaction has committed. A lint rule (`paysync/one-consequence-path`,
 * eslint.config.mjs) keeps the steps from being called anywhere else.
 */
export async function bookConsequences(
  trx: Kysely<Database>,
  outcomes: readonly ApplyOutcome[],
  at: string,
  settings: ConsequenceSettings,
): Promise<Consequences> {
  const traceparent = traceparentOf(settings.trace);
  const followUps =
    settings.followUps === false
      ? 0
      : await addFollowUps(trx, followUpsFor(outcomes), at, traceparent);
  await matchSettledItems(trx, justSettled(outcomes), at, {
    environment: settings.environment,
    allExpected: settings.allExpected,
  });
  const emitted = await emitRelayEvents(
    trx,
    itemEventsOf(outcomes, settings.environment),
    at,
    traceparent,
  );
  return { followUps, deliveries: emitted.deliveries };
}

/** Wakes the outbox dispatcher and the relay for what a committed booking wrote. */
export function announceConsequences(consequences: Consequences): void {
  if (consequences.followUps > 0) notifyOutbox();
  if (consequences.deliveries > 0) notifyRelay();
}

/** The sum of several bookings' consequences (a batch applied item by item after a failure). */
export function addConsequences(a: Consequences, b: Consequences): Consequences {
  return { followUps: a.followUps + b.followUps, deliveries: a.deliveries + b.deliveries };
}

export const NO_CONSEQUENCES: Consequences = { followUps: 0, deliveries: 0 };
