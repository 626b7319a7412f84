import { bookingState } from './booking-state.ts';
import { recordDiscrepancy, type NewDiscrepancy } from './discrepancy.repository.ts';
import type { Executor } from './executor.ts';
import { postJournal } from './journal.repository.ts';
import { LedgerError } from './ledger-errors.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import type {
  ApplyOutcome,
  DiscrepancySummary,
  JournalLine,
  JournalSummary,
  Observation,
} from './ledger-types.ts';
import { scheduleAfterChange } from './mirror-poll.repository.ts';
import { lockMirrorVersion, touchMirror, type MirrorKey } from './mirror-version.repository.ts';
import { DEFAULT_POLL_PLAN } from './poll-plan.ts';
import { reversalLines, sameLines } from './settlement-lines.ts';
import { recordStatusChange } from './status-history.repository.ts';
import { isAbsorbing, isTerminal, nextMirrorStatus } from './status-rules.ts';
import { utcMillis } from './utc-millis.ts';

/** One fetched state of one resource, reduced to what the rules need. */
export interface ObservedState {
  readonly kind: LedgerResourceKind;
  readonly id: string;
  readonly upstreamStatus: string;
  /** The service's updatedAt, UTC ms. */
  readonly updatedAt: string;
  readonly mirror: MirrorKey;
  /** Writes the mirror row (insert on first sighting, else update) with the given status. */
  insertIfNew(status: string, observation: Observation): Promise<boolean>;
  update(status: string, observation: Observation): Promise<void>;
  /** What a settlement of this state books. */
  settlementLines(): Promise<JournalLine[]>;
  /** One line for people reading the journal, e.g. `transfer tr_1 successful`. */
  readonly description: string;
}

interface Effects {
  journals: JournalSummary[];
  discrepancies: DiscrepancySummary[];
}

/**
 * The rules of docs/ledger.md, shared by every resource kind: take the state only when it is
 * newer, keep the status monotonic, record the change, and make the books match the status.
 */
export async function applyObservation(
  db: Executor,
  state: ObservedState,
  given: Observation,
): Promise<ApplyOutcome> {
  const observation = { ...given, observedAt: utcMillis(given.observedAt, 'observedAt') };
  const effects: Effects = { journals: [], discrepancies: [] };
  const base = { kind: state.kind, id: state.id, upstreamStatus: state.upstreamStatus };

  if (await state.insertIfNew(state.upstreamStatus, observation)) {
    await recordStatusChange(db, historyKey(state), undefined, state.upstreamStatus, observation);
    await settleBooks(db, state, state.upstreamStatus, observation, effects);
    await schedulePolls(db, state, state.upstreamStatus, observation);
    return {
      ...base,
      changed: true,
      stale: false,
      status: state.upstreamStatus,
      ...outcomeOf(effects),
    };
  }

  const current = await lockMirrorVersion(db, state.mirror);
  if (!current) {
    throw new LedgerError('missing_mirror_row', `${state.kind} ${state.id}: mirror row vanished`);
  }
  const unchanged = {
    ...base,
    changed: false,
    previousStatus: current.status,
    status: current.status,
  };
  if (state.updatedAt <= current.updatedAt) {
    await touchMirror(db, state.mirror, observation.observedAt);
    if (state.updatedAt === current.updatedAt && state.upstreamStatus !== current.upstreamStatus) {
      // Two different statuses under one version: the service broke its own ordering.
      await note(db, effects, state, observation, {
        kind: 'same_version_conflict',
        detail: {
          updatedAt: state.updatedAt,
          held: current.upstreamStatus,
          seen: state.upstreamStatus,
        },
        dedupeKey: `same_version_conflict:${state.kind}:${state.id}:${state.updatedAt}:${state.upstreamStatus}`,
      });
    }
    return { ...unchanged, stale: state.updatedAt < current.updatedAt, ...outcomeOf(effects) };
  }

  const status = nextMirrorStatus(state.kind, current.status, state.upstreamStatus);
  await state.update(status, observation);
  if (status !== state.upstreamStatus) {
    await note(db, effects, state, observation, {
      kind: 'status_regression',
      detail: { held: current.status, upstream: state.upstreamStatus, updatedAt: state.updatedAt },
      dedupeKey: `status_regression:${state.kind}:${state.id}:${state.updatedAt}`,
    });
  } else if (
    status !== current.status &&
    current.status !== 'successful' &&
    isAbsorbing(state.kind, current.status)
  ) {
    await note(db, effects, state, observation, {
      kind: 'terminal_status_changed',
      detail: { from: current.status, to: status, updatedAt: state.updatedAt },
      dedupeKey: `terminal_status_changed:${state.kind}:${state.id}:${state.updatedAt}`,
    });
  }
  if (status !== current.status) {
    await recordStatusChange(db, historyKey(state), current.status, status, observation);
  }
  await settleBooks(db, state, status, observation, effects);
  await schedulePolls(db, state, status, observation);
  return {
    ...base,
    changed: true,
    stale: false,
    previousStatus: current.status,
    status,
    ...outcomeOf(effects),
  };
}

/**
 * Makes the journal agree with `status`: booked exactly when it is `successful`. Keys come
 * from the journal's own counts, so a replay or a concurrent twin computes the same key and
 * the unique index turns its insert into a no-op.
 */
async function settleBooks(
  db: Executor,
  state: ObservedState,
  status: string,
  observation: Observation,
  effects: Effects,
): Promise<void> {
  const booking = await bookingState(db, state.kind, state.id);
  const journal = {
    resourceKind: state.kind,
    resourceId: state.id,
    effectiveAt: state.updatedAt,
    postedAt: observation.observedAt,
    via: observation.via,
    ...(observation.inboxId === undefined ? {} : { inboxId: observation.inboxId }),
  };
  if (status === 'successful') {
    const lines = await state.settlementLines();
    if (!booking.active) {
      const posted = await postJournal(db, {
        ...journal,
        settlementKey: `settlement-${booking.settlements + 1}`,
        entryType: 'settlement',
        description: state.description,
        lines,
      });
      if (posted) effects.journals.push(posted);
    } else if (!sameLines(lines, booking.active.lines)) {
      await note(db, effects, state, observation, {
        kind: 'amount_changed',
        detail: {
          settlementKey: booking.active.settlementKey,
          booked: booking.active.lines,
          upstream: lines,
          updatedAt: state.updatedAt,
        },
        dedupeKey: `amount_changed:${state.kind}:${state.id}:${state.updatedAt}`,
      });
    }
    return;
  }
  if (booking.active && isTerminal(status)) {
    const settlementKey = `reversal-${booking.settlements}`;
    const posted = await postJournal(db, {
      ...journal,
      settlementKey,
      entryType: 'reversal',
      reversesJournalId: booking.active.id,
      description: `reversal of ${booking.active.settlementKey}: ${state.description}`,
      lines: reversalLines(booking.active.lines),
    });
    if (posted) effects.journals.push(posted);
    await note(db, effects, state, observation, {
      kind: 'settlement_reversed',
      detail: {
        reversed: booking.active.settlementKey,
        by: settlementKey,
        status,
        updatedAt: state.updatedAt,
      },
      dedupeKey: `settlement_reversed:${state.kind}:${state.id}:${settlementKey}`,
    });
  }
}

async function note(
  db: Executor,
  effects: Effects,
  state: ObservedState,
  observation: Observation,
  discrepancy: Pick<NewDiscrepancy, 'kind' | 'detail' | 'dedupeKey'>,
): Promise<void> {
  const recorded = await recordDiscrepancy(db, {
    ...discrepancy,
    resourceKind: state.kind,
    resourceId: state.id,
    createdAt: observation.observedAt,
    ...(observation.inboxId === undefined ? {} : { inboxId: observation.inboxId }),
  });
  if (recorded.isNew) effects.discrepancies.push(recorded.discrepancy);
}

/** The janitor's next poll, set in the transaction that took the change (docs/processing.md). */
function schedulePolls(
  db: Executor,
  state: ObservedState,
  status: string,
  observation: Observation,
): Promise<void> {
  const plan = observation.pollPlan ?? DEFAULT_POLL_PLAN;
  return scheduleAfterChange(db, state, status, observation.observedAt, plan);
}

function historyKey(state: ObservedState) {
  return { kind: state.kind, id: state.id, serviceUpdatedAt: state.updatedAt };
}

function outcomeOf(effects: Effects) {
  return { journalsPosted: effects.journals, discrepancies: effects.discrepancies };
}
