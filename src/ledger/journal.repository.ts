import type { Executor } from '../db/index.ts';
import type { JournalEntryType, JournalLineRow, JournalRow, JournalVia } from './journal.table.ts';
import type { JournalResourceKind, LedgerResourceKind } from './ledger-resource-kind.ts';
import type { JournalLine, JournalSummary } from './ledger-types.ts';
import { chunksOf, runBulk, type BulkStatement } from '../db/index.ts';
import { lateChangeIn, lateChangeTarget, type ClosedWindow } from './late-change.ts';
import { LedgerError } from './ledger-errors.ts';
import { assertBalanced } from './settlement-lines.ts';
import { addToDayTotals, type BookedLines } from './day-totals.repository.ts';

export interface NewJournal {
  readonly resourceKind: JournalResourceKind;
  readonly resourceId: string;
  readonly settlementKey: string;
  readonly entryType: JournalEntryType;
  readonly reversesJournalId?: number;
  readonly description: string;
  readonly effectiveAt: string;
  readonly postedAt: string;
  readonly via: JournalVia;
  readonly inboxId?: number;
  readonly lines: readonly JournalLine[];
}

/** A journal the rules decided to post; `id` is set once it is written. */
export interface PlannedJournal extends Omit<NewJournal, 'reversesJournalId'> {
  /** The settlement a reversal undoes: a journal on file (its id) or one planned before it. */
  readonly reverses?: number | PlannedJournal;
  id?: number;
}

/**
 * Books a journal unless one with the same (resource, settlement key) exists. The unique key
 * decides, not a prior read: of two concurrent writers, one inserts and the other gets
 * `undefined` ("already booked"). Throws, before writing, when the lines do not balance.
 */
export async function postJournal(
  db: Executor,
  given: NewJournal,
): Promise<JournalSummary | undefined> {
  assertBalanced(given.lines, `${given.resourceKind} ${given.resourceId} ${given.settlementKey}`);
  // A closed month stays closed (docs/exports.md): a change that touches one is booked at the
  // start of the first open period, and remembered as a late change with its real time.
  const late = await lateChangeTarget(db, given.effectiveAt);
  const journal = late
    ? {
        ...given,
        effectiveAt: late.bookedAt,
        description: `late change to closed period ${late.period} (effective ${given.effectiveAt}): ${given.description}`,
      }
    : given;
  const inserted = await db
    .insertInto('journals')
    .values({
      resource_kind: journal.resourceKind,
      resource_id: journal.resourceId,
      settlement_key: journal.settlementKey,
      entry_type: journal.entryType,
      reverses_journal_id: journal.reversesJournalId ?? null,
      description: journal.description,
      effective_at: journal.effectiveAt,
      posted_at: journal.postedAt,
      via: journal.via,
      inbox_id: journal.inboxId ?? null,
    })
    .onConflict((oc) => oc.columns(['resource_kind', 'resource_id', 'settlement_key']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!inserted) return undefined;
  if (late) {
    await db
      .insertInto('late_changes')
      .values({
        journal_id: inserted.id,
        closed_period: late.period,
        original_effective_at: given.effectiveAt,
        booked_effective_at: late.bookedAt,
      })
      .execute();
  }
  await db
    .insertInto('journal_lines')
    .values(
      journal.lines.map((line, index) => ({
        journal_id: inserted.id,
        line_no: index + 1,
        account: line.account,
        currency: line.currency,
        amount: line.amount,
      })),
    )
    .execute();
  await addToDayTotals(db, [journal]);
  return toJournalSummary(inserted, journal.lines);
}

const INSERT_JOURNALS: BulkStatement = {
  table: 'journals',
  columns: [
    'resource_kind',
    'resource_id',
    'settlement_key',
    'entry_type',
    'reverses_journal_id',
    'description',
    'effective_at',
    'posted_at',
    'via',
    'inbox_id',
  ],
  tail: 'on conflict (resource_kind, resource_id, settlement_key) do nothing returning *',
};

const INSERT_LINES: BulkStatement = {
  table: 'journal_lines',
  columns: ['journal_id', 'line_no', 'account', 'currency', 'amount'],
  tail: '',
};

/**
 * The batch form of {@link postJournal}, in booking order and multi-row inserts: sets `id` on
 * each planned journal it inserts and returns their summaries (one already booked under its key
 * is skipped, as one by one). A reversal of a settlement planned in the same batch waits for
 * that settlement's id, so the journals go in as few waves as the references allow.
 */
export async function postJournals(
  db: Executor,
  planned: readonly PlannedJournal[],
  closed: readonly ClosedWindow[],
): Promise<Map<PlannedJournal, JournalSummary>> {
  const posted = new Map<PlannedJournal, JournalSummary>();
  let wave: PlannedJournal[] = [];
  const flush = async () => {
    if (wave.length > 0) await postWave(db, wave, closed, posted);
    wave = [];
  };
  for (const journal of planned) {
    if (typeof journal.reverses === 'object' && journal.reverses.id === undefined) {
      await flush();
      if (journal.reverses.id === undefined) {
        throw new LedgerError(
          'concurrent_booking',
          `${journal.resourceKind} ${journal.resourceId}: ${journal.reverses.settlementKey} was booked by another writer meanwhile`,
        );
      }
    }
    wave.push(journal);
  }
  await flush();
  return posted;
}

async function postWave(
  db: Executor,
  wave: readonly PlannedJournal[],
  closed: readonly ClosedWindow[],
  posted: Map<PlannedJournal, JournalSummary>,
): Promise<void> {
  const booked = wave.map((given) => {
    const late = lateChangeIn(closed, given.effectiveAt);
    const journal = late
      ? {
          ...given,
          effectiveAt: late.bookedAt,
          description: `late change to closed period ${late.period} (effective ${given.effectiveAt}): ${given.description}`,
        }
      : given;
    return { given, journal, late };
  });
  const rows = await runBulk<JournalRow>(
    db,
    INSERT_JOURNALS,
    booked.map(({ journal }) => [
      journal.resourceKind,
      journal.resourceId,
      journal.settlementKey,
      journal.entryType,
      typeof journal.reverses === 'object' ? journal.reverses.id! : (journal.reverses ?? null),
      journal.description,
      journal.effectiveAt,
      journal.postedAt,
      journal.via,
      journal.inboxId ?? null,
    ]),
  );
  const byKey = new Map(
    rows.map((row) => [`${row.resource_kind}:${row.resource_id}:${row.settlement_key}`, row]),
  );
  const lines: unknown[][] = [];
  const written: BookedLines[] = [];
  for (const { given, journal, late } of booked) {
    const row = byKey.get(`${journal.resourceKind}:${journal.resourceId}:${journal.settlementKey}`);
    if (!row) continue;
    given.id = row.id;
    posted.set(given, toJournalSummary(row, journal.lines));
    journal.lines.forEach((line, index) =>
      lines.push([row.id, index + 1, line.account, line.currency, line.amount]),
    );
    written.push(journal);
    if (late) {
      await db
        .insertInto('late_changes')
        .values({
          journal_id: row.id,
          closed_period: late.period,
          original_effective_at: given.effectiveAt,
          booked_effective_at: late.bookedAt,
        })
        .execute();
    }
  }
  await runBulk(db, INSERT_LINES, lines);
  await addToDayTotals(db, written);
}

/** Every journal of many resources of one kind, in booking order, with their lines. */
export async function journalsOf(
  db: Executor,
  kind: JournalResourceKind,
  ids: readonly string[],
): Promise<Map<string, JournalSummary[]>> {
  const byResource = new Map<string, JournalSummary[]>();
  for (const chunk of chunksOf(ids)) {
    const journals = await db
      .selectFrom('journals')
      .selectAll()
      .where('resource_kind', '=', kind)
      .where('resource_id', 'in', chunk)
      .orderBy('id')
      .execute();
    if (journals.length === 0) continue;
    const lines = new Map<number, JournalLine[]>();
    for (const ids of chunksOf(journals.map((j) => j.id))) {
      const rows = await db
        .selectFrom('journal_lines')
        .selectAll()
        .where('journal_id', 'in', ids)
        .orderBy('journal_id')
        .orderBy('line_no')
        .execute();
      for (const row of rows) {
        const list = lines.get(row.journal_id) ?? [];
        list.push(toJournalLine(row));
        lines.set(row.journal_id, list);
      }
    }
    for (const journal of journals) {
      const list = byResource.get(journal.resource_id) ?? [];
      list.push(toJournalSummary(journal, lines.get(journal.id) ?? []));
      byResource.set(journal.resource_id, list);
    }
  }
  return byResource;
}

/** Every journal of one resource, in booking order, with its lines. */
export async function journalsFor(
  db: Executor,
  kind: JournalResourceKind,
  id: string,
): Promise<JournalSummary[]> {
  const journals = await db
    .selectFrom('journals')
    .selectAll()
    .where('resource_kind', '=', kind)
    .where('resource_id', '=', id)
    .orderBy('id')
    .execute();
  if (journals.length === 0) return [];
  const lines = await db
    .selectFrom('journal_lines')
    .selectAll()
    .where(
      'journal_id',
      'in',
      journals.map((j) => j.id),
    )
    .orderBy('journal_id')
    .orderBy('line_no')
    .execute();
  return journals.map((journal) =>
    toJournalSummary(
      journal,
      lines.filter((line) => line.journal_id === journal.id).map(toJournalLine),
    ),
  );
}

/** How many settlement journals (not reversals) one resource has. */
export async function settlementJournalCount(
  db: Executor,
  kind: LedgerResourceKind,
  id: string,
): Promise<number> {
  const { count } = await db
    .selectFrom('journals')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('resource_kind', '=', kind)
    .where('resource_id', '=', id)
    .where('entry_type', '=', 'settlement')
    .executeTakeFirstOrThrow();
  return Number(count);
}

function toJournalLine(row: JournalLineRow): JournalLine {
  return { account: row.account, currency: row.currency, amount: row.amount };
}

export function toJournalSummary(row: JournalRow, lines: readonly JournalLine[]): JournalSummary {
  return {
    id: row.id,
    resourceKind: row.resource_kind as JournalResourceKind,
    resourceId: row.resource_id,
    settlementKey: row.settlement_key,
    entryType: row.entry_type,
    reversesJournalId: row.reverses_journal_id,
    description: row.description,
    effectiveAt: row.effective_at,
    postedAt: row.posted_at,
    via: row.via,
    inboxId: row.inbox_id,
    lines,
  };
}
