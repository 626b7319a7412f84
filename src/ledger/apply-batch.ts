import type { Executor } from '../db/index.ts';
import type { RefundKind } from '../resources/index.ts';
import { planObservation, type ItemBooks, type ObservationPlan } from './apply-observation.ts';
import { chunksOf } from '../db/index.ts';
import { bookingOf } from './booking-state.ts';
import { recordNewDiscrepancies } from './discrepancy.repository.ts';
import { journalsOf, postJournals } from './journal.repository.ts';
import { closedWindows } from './late-change.ts';
import { LedgerError } from './ledger-errors.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import type { ApplyOutcome, JournalSummary, Observation } from './ledger-types.ts';
import { scheduleAfterChanges, type PollRestart } from './mirror-poll.repository.ts';
import {
  lockMirrorVersions,
  touchMirrors,
  type MirrorKey,
  type MirrorVersion,
} from './mirror-version.repository.ts';
import {
  insertMirrorsIfNew,
  updateMirrors,
  type MirrorColumns,
  type MirrorTable,
} from './mirror-writer.ts';
import { mirrorRecordOf } from './mirror-record-of.ts';
import { observedStateOf, type BatchEntry, type ObservedState } from './observed-state.ts';
import { recordStatusChanges, type NewStatusChange } from './status-history.repository.ts';
import { utcMillis } from './utc-millis.ts';

/** One item of a batch: its key, its books as the rules advance them, and its mirror writes. */
interface BatchItem {
  readonly first: ObservedState;
  readonly firstObservation: Observation;
  books: ItemBooks;
  /** The first entry's row went in as a new row before the rules ran. */
  inserted: boolean;
  /** The newest state taken after that insert, written over the row at the end. */
  taken: MirrorColumns[MirrorTable] | undefined;
  /** The latest observation of the item: `last_synced_at` only moves forward. */
  lastSeen: string;
}

/** The mirror tables and the refund kind that selects one kind's rows of `refunds`. */
const GROUPS: readonly { kind: LedgerResourceKind; table: MirrorTable; refund?: RefundKind }[] = [
  { kind: 'payment_intent', table: 'payment_intents' },
  { kind: 'transfer', table: 'transfers' },
  { kind: 'refund', table: 'refunds', refund: 'refund' },
  { kind: 'payment_refund', table: 'refunds', refund: 'payment_refund' },
];

/**
 * Applies many fetched states in the caller's transaction, with the same books as applying
 * them one by one in order (docs/ledger.md, "Batch apply"): the rules of `planObservation` run
 * in memory over the items' mirror versions and journals, read in a few multi-row SELECTs, and
 * what they decide is written with multi-row INSERTs. Several entries about one item behave as
 * if applied in order. Returns one outcome per entry, in order.
 */
export async function applyBatch(
  db: Executor,
  entries: readonly BatchEntry[],
): Promise<ApplyOutcome[]> {
  if (entries.length === 0) return [];
  const states = entries.map((entry) => observedStateOf(entry.fetched));
  const items = new Map<string, BatchItem>();
  states.forEach((state, index) => {
    const key = itemKey(state.kind, state.id);
    const observedAt = utcMillis(entries[index]!.observation.observedAt, 'observedAt');
    const item = items.get(key);
    if (item) {
      if (observedAt > item.lastSeen) item.lastSeen = observedAt;
      return;
    }
    items.set(key, {
      first: state,
      firstObservation: { ...entries[index]!.observation, observedAt },
      books: { mirror: undefined, settlements: 0, reversals: 0, active: undefined },
      inserted: false,
      taken: undefined,
      lastSeen: observedAt,
    });
  });

  // First sightings: the unique key decides, as one by one, so racing writers insert once.
  // The others' versions are read locked (PostgreSQL), with their journals.
  // Tables in one order and rows by id, so concurrent batches take their locks in one order.
  for (const group of GROUPS) {
    const mine = [...items.values()]
      .filter((item) => item.first.kind === group.kind)
      .sort((a, b) => (a.first.id < b.first.id ? -1 : a.first.id > b.first.id ? 1 : 0));
    if (mine.length === 0) continue;
    const inserted = await insertMirrorsIfNew(
      db,
      group.table,
      mine.map((item) =>
        item.first.columns(item.first.upstreamStatus, item.firstObservation),
      ) as MirrorColumns[typeof group.table][],
    );
    for (const item of mine) {
      item.inserted = inserted.has(mirrorKeyText(item.first.mirror));
    }
    const existing = mine.filter((item) => !item.inserted).map((item) => item.first.id);
    const versions = await lockMirrorVersions(db, group.table, group.refund, existing);
    const journals = await journalsOf(
      db,
      group.kind,
      mine.map((item) => item.first.id),
    );
    for (const item of mine) {
      if (!item.inserted && !versions.has(item.first.id)) {
        throw new LedgerError(
          'missing_mirror_row',
          `${item.first.kind} ${item.first.id}: mirror row vanished`,
        );
      }
      item.books = booksOf(
        item.inserted ? undefined : versions.get(item.first.id),
        journals.get(item.first.id) ?? [],
      );
    }
  }

  // A refund's settlement reads its transfer as the mirror held it before the batch, and as
  // entries before it in the batch changed it; read after the inserts, so that on SQLite the
  // transaction's first statement is a write (docs/ledger.md, concurrency notes).
  const transferIrt = await transfersIrt(
    db,
    states.flatMap((s) => (s.refundedTransferId === undefined ? [] : [s.refundedTransferId])),
  );
  for (const item of items.values()) {
    if (item.first.kind === 'transfer' && item.inserted) transferIrt.delete(item.first.id);
  }
  const context = { transferIsIrt: (id: string) => transferIrt.get(id) ?? false };
  const plans: ObservationPlan[] = states.map((state, index) => {
    const item = items.get(itemKey(state.kind, state.id))!;
    const plan = planObservation(state, entries[index]!.observation, item.books, context);
    if (plan.mirrorWrite === 'update') item.taken = plan.columns;
    if (plan.mirrorWrite !== 'touch' && state.isIrt !== undefined) {
      transferIrt.set(state.id, state.isIrt);
    }
    return plan;
  });

  await writeMirrors(db, items);
  await recordStatusChanges(
    db,
    plans.flatMap((plan, index) => historyOf(plan, states[index]!)),
  );
  const planned = plans.flatMap((plan) => plan.journals);
  const posted =
    planned.length === 0
      ? new Map<never, JournalSummary>()
      : await postJournals(db, planned, await closedWindows(db));
  const discrepancies = await recordNewDiscrepancies(
    db,
    plans.flatMap((plan) => plan.discrepancies),
  );
  await scheduleAfterChanges(
    db,
    plans.flatMap((plan, index): PollRestart[] =>
      plan.poll
        ? [{ key: { kind: states[index]!.kind, id: states[index]!.id }, ...plan.poll }]
        : [],
    ),
  );

  // A discrepancy new to the books is reported by the entry that first found it.
  const reported = new Set<string>();
  return plans.map((plan, index) => ({
    ...plan.outcome,
    ...(plan.columns ? { record: mirrorRecordOf(states[index]!.mirror.table, plan.columns) } : {}),
    journalsPosted: plan.journals.flatMap((j) => {
      const summary = posted.get(j);
      return summary ? [summary] : [];
    }),
    discrepancies: plan.discrepancies.flatMap((d) => {
      const summary = discrepancies.get(d.dedupeKey);
      if (!summary || reported.has(d.dedupeKey)) return [];
      reported.add(d.dedupeKey);
      return [summary];
    }),
  }));
}

function itemKey(kind: LedgerResourceKind, id: string): string {
  return `${kind}:${id}`;
}

function mirrorKeyText(key: MirrorKey): string {
  return key.table === 'refunds' ? `${key.kind}:${key.id}` : key.id;
}

function booksOf(
  mirror: MirrorVersion | undefined,
  journals: readonly JournalSummary[],
): ItemBooks {
  const booking = bookingOf(journals);
  return {
    mirror,
    settlements: booking.settlements,
    reversals: booking.reversals,
    active: booking.active && {
      settlementKey: booking.active.settlementKey,
      lines: booking.active.lines,
      journal: booking.active.id,
    },
  };
}

async function transfersIrt(db: Executor, ids: readonly string[]): Promise<Map<string, boolean>> {
  const irt = new Map<string, boolean>();
  for (const chunk of chunksOf([...new Set(ids)])) {
    const rows = await db
      .selectFrom('transfers')
      .select(['id', 'is_irt'])
      .where('id', 'in', chunk)
      .execute();
    for (const row of rows) irt.set(row.id, row.is_irt === 1);
  }
  return irt;
}

/** The newest state taken over each row, then `last_synced_at` for the rest. */
async function writeMirrors(db: Executor, items: ReadonlyMap<string, BatchItem>): Promise<void> {
  for (const group of GROUPS) {
    const mine = [...items.values()].filter((item) => item.first.kind === group.kind);
    const taken = mine.flatMap((item) =>
      item.taken ? [{ ...item.taken, last_synced_at: item.lastSeen }] : [],
    );
    await updateMirrors(db, group.table, taken as MirrorColumns[typeof group.table][]);
    const touched = new Map<string, string[]>();
    for (const item of mine) {
      if (item.taken) continue;
      if (item.inserted && item.lastSeen === item.firstObservation.observedAt) continue;
      touched.set(item.lastSeen, [...(touched.get(item.lastSeen) ?? []), item.first.id]);
    }
    for (const [observedAt, ids] of touched) {
      await touchMirrors(db, group.table, group.refund, ids, observedAt);
    }
  }
}

function historyOf(plan: ObservationPlan, state: ObservedState): NewStatusChange[] {
  if (!plan.history) return [];
  return [
    {
      resource: { kind: state.kind, id: state.id, serviceUpdatedAt: state.updatedAt },
      fromStatus: plan.history.fromStatus,
      toStatus: plan.history.toStatus,
      observation: plan.observation,
    },
  ];
}
