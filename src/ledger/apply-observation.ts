import type { NewDiscrepancy } from './discrepancy.repository.ts';
import type { PlannedJournal } from './journal.repository.ts';
import type { ApplyOutcome, JournalLine, Observation } from './ledger-types.ts';
import type { MirrorVersion } from './mirror-version.repository.ts';
import type { MirrorColumns } from './mirror-writer.ts';
import type { ObservedState, SettlementContext } from './observed-state.ts';
import type { PollPlan } from './poll-plan.ts';
import { DEFAULT_POLL_PLAN } from './poll-plan.ts';
import { assertBalanced, reversalLines, sameLines } from './settlement-lines.ts';
import { isAbsorbing, isTerminal, nextMirrorStatus } from './status-rules.ts';
import { utcMillis } from './utc-millis.ts';

/** What the journal says about one item: the counts and the settlement the books hold. */
export interface ItemBooks {
  /** The mirror's version; undefined until the item's first state is taken. */
  mirror: MirrorVersion | undefined;
  settlements: number;
  reversals: number;
  /** The settlement not yet reversed, when there is one. */
  active:
    | { settlementKey: string; lines: readonly JournalLine[]; journal: number | PlannedJournal }
    | undefined;
}

export type PlannedDiscrepancy = NewDiscrepancy & { readonly dedupeKey: string };

/** Everything one observation does to the books, decided in memory, written by the caller. */
export interface ObservationPlan {
  readonly outcome: Omit<ApplyOutcome, 'journalsPosted' | 'discrepancies'>;
  readonly observation: Observation;
  /** `insert`: the first sighting; `update`: a newer state taken; `touch`: only last synced. */
  readonly mirrorWrite: 'insert' | 'update' | 'touch';
  readonly columns?: MirrorColumns[keyof MirrorColumns];
  readonly history?: { fromStatus: string | undefined; toStatus: string };
  readonly journals: PlannedJournal[];
  readonly discrepancies: PlannedDiscrepancy[];
  /** The janitor's schedule restarts from this change (docs/processing.md). */
  readonly poll?: { status: string; changedAt: string; plan: PollPlan };
}

/**
 * The rules of docs/ledger.md, shared by every resource kind and by the single and batch
 * apply alike: take the state only when it is newer, keep the status monotonic, record the
 * change, and make the books match the status. Pure: it reads and advances `books`, and
 * returns what to write; `applyBatch` reads the books and writes the plans.
 */
export function planObservation(
  state: ObservedState,
  given: Observation,
  books: ItemBooks,
  context: SettlementContext,
): ObservationPlan {
  const observation = { ...given, observedAt: utcMillis(given.observedAt, 'observedAt') };
  const journals: PlannedJournal[] = [];
  const discrepancies: PlannedDiscrepancy[] = [];
  const base = { kind: state.kind, id: state.id, upstreamStatus: state.upstreamStatus };
  const note = (d: Pick<PlannedDiscrepancy, 'kind' | 'detail' | 'dedupeKey'>) =>
    discrepancies.push({
      ...d,
      resourceKind: state.kind,
      resourceId: state.id,
      createdAt: observation.observedAt,
      ...(observation.inboxId === undefined ? {} : { inboxId: observation.inboxId }),
    });
  const poll = (status: string) => ({
    status,
    changedAt: observation.observedAt,
    plan: observation.pollPlan ?? DEFAULT_POLL_PLAN,
  });
  const current = books.mirror;

  if (!current) {
    const status = state.upstreamStatus;
    books.mirror = { status, upstreamStatus: status, updatedAt: state.updatedAt };
    settleBooks(state, status, observation, books, context, journals, note);
    return {
      outcome: { ...base, changed: true, stale: false, status },
      observation,
      mirrorWrite: 'insert',
      columns: state.columns(status, observation),
      history: { fromStatus: undefined, toStatus: status },
      journals,
      discrepancies,
      poll: poll(status),
    };
  }

  if (state.updatedAt <= current.updatedAt) {
    if (state.updatedAt === current.updatedAt && state.upstreamStatus !== current.upstreamStatus) {
      // Two different statuses under one version: the service broke its own ordering.
      note({
        kind: 'same_version_conflict',
        detail: {
          updatedAt: state.updatedAt,
          held: current.upstreamStatus,
          seen: state.upstreamStatus,
        },
        dedupeKey: `same_version_conflict:${state.kind}:${state.id}:${state.updatedAt}:${state.upstreamStatus}`,
      });
    }
    return {
      outcome: {
        ...base,
        changed: false,
        stale: state.updatedAt < current.updatedAt,
        previousStatus: current.status,
        status: current.status,
      },
      observation,
      mirrorWrite: 'touch',
      journals,
      discrepancies,
    };
  }

  const status = nextMirrorStatus(state.kind, current.status, state.upstreamStatus);
  books.mirror = { status, upstreamStatus: state.upstreamStatus, updatedAt: state.updatedAt };
  if (status !== state.upstreamStatus) {
    note({
      kind: 'status_regression',
      detail: { held: current.status, upstream: state.upstreamStatus, updatedAt: state.updatedAt },
      dedupeKey: `status_regression:${state.kind}:${state.id}:${state.updatedAt}`,
    });
  } else if (
    status !== current.status &&
    current.status !== 'successful' &&
    isAbsorbing(state.kind, current.status)
  ) {
    note({
      kind: 'terminal_status_changed',
      detail: { from: current.status, to: status, updatedAt: state.updatedAt },
      dedupeKey: `terminal_status_changed:${state.kind}:${state.id}:${state.updatedAt}`,
    });
  }
  settleBooks(state, status, observation, books, context, journals, note);
  return {
    outcome: { ...base, changed: true, stale: false, previousStatus: current.status, status },
    observation,
    mirrorWrite: 'update',
    columns: state.columns(status, observation),
    ...(status === current.status
      ? {}
      : { history: { fromStatus: current.status, toStatus: status } }),
    journals,
    discrepancies,
    poll: poll(status),
  };
}

/**
 * Makes the journal agree with `status`: booked exactly when it is `successful`. Keys come
 * from the journal's own counts, so a replay or a concurrent twin computes the same key and
 * the unique index turns its insert into a no-op.
 */
function settleBooks(
  state: ObservedState,
  status: string,
  observation: Observation,
  books: ItemBooks,
  context: SettlementContext,
  journals: PlannedJournal[],
  note: (d: Pick<PlannedDiscrepancy, 'kind' | 'detail' | 'dedupeKey'>) => void,
): void {
  const journal = {
    resourceKind: state.kind,
    resourceId: state.id,
    effectiveAt: state.updatedAt,
    postedAt: observation.observedAt,
    via: observation.via,
    ...(observation.inboxId === undefined ? {} : { inboxId: observation.inboxId }),
  };
  if (status === 'successful') {
    const lines = state.settlementLines(context);
    if (!books.active) {
      const settlementKey = `settlement-${books.settlements + 1}`;
      assertBalanced(lines, `${state.kind} ${state.id} ${settlementKey}`);
      const planned: PlannedJournal = {
        ...journal,
        settlementKey,
        entryType: 'settlement',
        description: state.description,
        lines,
      };
      journals.push(planned);
      books.settlements += 1;
      books.active = { settlementKey, lines, journal: planned };
    } else if (!sameLines(lines, books.active.lines)) {
      note({
        kind: 'amount_changed',
        detail: {
          settlementKey: books.active.settlementKey,
          booked: books.active.lines,
          upstream: lines,
          updatedAt: state.updatedAt,
        },
        dedupeKey: `amount_changed:${state.kind}:${state.id}:${state.updatedAt}`,
      });
    }
    return;
  }
  if (books.active && isTerminal(status)) {
    const active = books.active;
    const settlementKey = `reversal-${books.settlements}`;
    const lines = reversalLines(active.lines);
    assertBalanced(lines, `${state.kind} ${state.id} ${settlementKey}`);
    journals.push({
      ...journal,
      settlementKey,
      entryType: 'reversal',
      reverses: active.journal,
      description: `reversal of ${active.settlementKey}: ${state.description}`,
      lines,
    });
    books.reversals += 1;
    books.active = undefined;
    note({
      kind: 'settlement_reversed',
      detail: {
        reversed: active.settlementKey,
        by: settlementKey,
        status,
        updatedAt: state.updatedAt,
      },
      dedupeKey: `settlement_reversed:${state.kind}:${state.id}:${settlementKey}`,
    });
  }
}
