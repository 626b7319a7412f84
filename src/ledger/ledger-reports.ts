import { sql } from 'kysely';
import type { AccountName } from './accounts.ts';
import type { JournalEntryType } from './journal.table.ts';
import type { Executor } from '../db/index.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import { dayOf, startOfDay } from './day-totals.repository.ts';

export interface AccountBalance {
  readonly account: AccountName;
  readonly currency: string;
  /** Sum of the account's lines: positive is a debit balance. */
  readonly balance: number;
}

export interface StatusCount {
  readonly kind: LedgerResourceKind;
  readonly status: string;
  readonly count: number;
}

export interface UnbalancedJournal {
  readonly journalId: number;
  readonly resourceKind: string;
  readonly resourceId: string;
  readonly settlementKey: string;
  /** The currency that does not sum to zero; null for a journal without lines. */
  readonly currency: string | null;
  readonly sum: number;
}

/** Every journal line beside its journal: the base of the sums below. */
function linesWithJournals(db: Executor) {
  return db
    .selectFrom('journal_lines')
    .innerJoin('journals', 'journals.id', 'journal_lines.journal_id');
}

/**
 * Per account and currency, the sum of every line ever booked: read from the day totals
 * (docs/ledger.md, "Day totals"), a few rows a day however many lines the books hold.
 */
export async function accountBalances(db: Executor): Promise<AccountBalance[]> {
  const rows = await db
    .selectFrom('ledger_day_totals')
    .select(['account', 'currency', (eb) => eb.fn.sum<number>('amount').as('balance')])
    .groupBy(['account', 'currency'])
    .orderBy('account')
    .orderBy('currency')
    .execute();
  return rows.map(toBalance);
}

function toBalance(row: { account: AccountName; currency: string; balance: number }) {
  return { account: row.account, currency: row.currency, balance: Number(row.balance) };
}

/**
 * Per account and currency, the sum of lines of journals effective before `instant` (or at it,
 * with `inclusive`), optionally on `service:*` accounts only: the day totals of the days before
 * the instant's UTC day, and the lines of that day's journals up to the instant (the
 * `journals_effective_at` index). Every (account, currency) with a line so far has a row, zero
 * sums included, exactly as a sum over every line would.
 */
async function balancesUpTo(
  db: Executor,
  instant: string,
  options: { inclusive: boolean; serviceOnly: boolean },
): Promise<AccountBalance[]> {
  const service = 'service:%' as AccountName;
  const rows = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('ledger_day_totals')
        .select(['account', 'currency', 'amount'])
        .where('day', '<', dayOf(instant))
        .$if(options.serviceOnly, (qb) => qb.where('account', 'like', service))
        .unionAll(
          eb
            .selectFrom('journal_lines')
            .innerJoin('journals', 'journals.id', 'journal_lines.journal_id')
            .select(['journal_lines.account', 'journal_lines.currency', 'journal_lines.amount'])
            .where('journals.effective_at', '>=', startOfDay(instant))
            .where('journals.effective_at', options.inclusive ? '<=' : '<', instant)
            .$if(options.serviceOnly, (qb) => qb.where('journal_lines.account', 'like', service)),
        )
        .as('parts'),
    )
    .select(['account', 'currency', (eb) => eb.fn.sum<number>('amount').as('balance')])
    .groupBy(['account', 'currency'])
    .orderBy('account')
    .orderBy('currency')
    .execute();
  return rows.map(toBalance);
}

/** A half-open range of UTC instants, `[from, to)`. */
export interface InstantWindow {
  readonly from: string;
  readonly to: string;
}

/**
 * How many mirrored resources are in each status, per kind; with `createdIn`, only those the
 * service created within that window.
 */
export async function countsByStatus(
  db: Executor,
  createdIn?: InstantWindow,
): Promise<StatusCount[]> {
  const count = sql<number>`count(*)`.as('count');
  // One after the other: inside a transaction there is one connection to share.
  const intents = await db
    .selectFrom('payment_intents')
    .select(['status', count])
    .$if(createdIn !== undefined, (qb) => qb.where('created_at', '>=', createdIn!.from))
    .$if(createdIn !== undefined, (qb) => qb.where('created_at', '<', createdIn!.to))
    .groupBy('status')
    .execute();
  const transfers = await db
    .selectFrom('transfers')
    .select(['status', count])
    .$if(createdIn !== undefined, (qb) => qb.where('created_at', '>=', createdIn!.from))
    .$if(createdIn !== undefined, (qb) => qb.where('created_at', '<', createdIn!.to))
    .groupBy('status')
    .execute();
  const refunds = await db
    .selectFrom('refunds')
    .select(['kind', 'status', count])
    .$if(createdIn !== undefined, (qb) => qb.where('created_at', '>=', createdIn!.from))
    .$if(createdIn !== undefined, (qb) => qb.where('created_at', '<', createdIn!.to))
    .groupBy(['kind', 'status'])
    .execute();
  return [
    ...intents.map((r) => ({
      kind: 'payment_intent' as const,
      status: r.status,
      count: Number(r.count),
    })),
    ...transfers.map((r) => ({
      kind: 'transfer' as const,
      status: r.status,
      count: Number(r.count),
    })),
    ...refunds.map((r) => ({ kind: r.kind, status: r.status, count: Number(r.count) })),
  ].sort((a, b) =>
    a.kind === b.kind ? a.status.localeCompare(b.status) : a.kind.localeCompare(b.kind),
  );
}

/** Ids of every mirrored resource the service created within `window`, intents first. */
export async function resourceIdsCreatedIn(db: Executor, window: InstantWindow): Promise<string[]> {
  const ids: string[] = [];
  for (const table of ['payment_intents', 'transfers', 'refunds'] as const) {
    const rows = await db
      .selectFrom(table)
      .select('id')
      .where('created_at', '>=', window.from)
      .where('created_at', '<', window.to)
      .execute();
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/**
 * Journals whose lines do not sum to zero in some currency, or that have no lines. Always
 * empty unless something wrote to the journal behind the ledger's back.
 */
export async function unbalancedJournals(db: Executor): Promise<UnbalancedJournal[]> {
  const off = await db
    .selectFrom('journal_lines as l')
    .innerJoin('journals as j', 'j.id', 'l.journal_id')
    .select([
      'j.id as journalId',
      'j.resource_kind as resourceKind',
      'j.resource_id as resourceId',
      'j.settlement_key as settlementKey',
      'l.currency as currency',
      (eb) => eb.fn.sum<number>('l.amount').as('sum'),
    ])
    .groupBy(['j.id', 'j.resource_kind', 'j.resource_id', 'j.settlement_key', 'l.currency'])
    .having((eb) => eb.fn.sum('l.amount'), '<>', 0)
    .execute();
  const empty = await db
    .selectFrom('journals as j')
    .leftJoin('journal_lines as l', 'l.journal_id', 'j.id')
    .select([
      'j.id as journalId',
      'j.resource_kind as resourceKind',
      'j.resource_id as resourceId',
      'j.settlement_key as settlementKey',
    ])
    .where('l.id', 'is', null)
    .execute();
  return [
    ...off.map((row) => ({ ...row, sum: Number(row.sum) })),
    ...empty.map((row) => ({ ...row, currency: null, sum: 0 })),
  ].sort((a, b) => a.journalId - b.journalId);
}

/**
 * Per `service:*` account and currency, the sum of lines of journals effective at or before
 * `instant`: what the ledger says the service held then. Opening balances and adjustments count.
 */
export async function serviceBalancesAsOf(
  db: Executor,
  instant: string,
): Promise<AccountBalance[]> {
  return balancesUpTo(db, instant, { inclusive: true, serviceOnly: true });
}

export interface JournalNear {
  readonly journalId: number;
  readonly resourceKind: string;
  readonly resourceId: string;
  readonly entryType: string;
  readonly effectiveAt: string;
  readonly postedAt: string;
  readonly amount: number;
}

/**
 * Lines on one account and currency whose journal is effective within `[from, to]`: the
 * bookings that may straddle a snapshot's instant.
 */
export async function journalLinesBetween(
  db: Executor,
  options: { account: AccountName; currency: string; from: string; to: string },
): Promise<JournalNear[]> {
  const rows = await linesWithJournals(db)
    .select([
      'journals.id',
      'journals.resource_kind',
      'journals.resource_id',
      'journals.entry_type',
      'journals.effective_at',
      'journals.posted_at',
      'journal_lines.amount',
    ])
    .where('journal_lines.account', '=', options.account)
    .where('journal_lines.currency', '=', options.currency)
    .where('journals.effective_at', '>=', options.from)
    .where('journals.effective_at', '<=', options.to)
    .orderBy('journals.effective_at')
    .execute();
  return rows.map((row) => ({
    journalId: Number(row.id),
    resourceKind: row.resource_kind,
    resourceId: row.resource_id,
    entryType: row.entry_type,
    effectiveAt: row.effective_at,
    postedAt: row.posted_at,
    amount: Number(row.amount),
  }));
}

/** The sum of one account's lines in one currency, from journals of one entry type. */
export interface EntryTypeTotal {
  readonly account: AccountName;
  readonly currency: string;
  readonly entryType: JournalEntryType;
  readonly total: number;
}

/** Per account, currency and entry type, the sum of lines of journals effective in `window`. */
export async function lineTotalsByEntryType(
  db: Executor,
  window: InstantWindow,
): Promise<EntryTypeTotal[]> {
  const rows = await linesWithJournals(db)
    .select([
      'journal_lines.account',
      'journal_lines.currency',
      'journals.entry_type',
      (eb) => eb.fn.sum<number>('journal_lines.amount').as('total'),
    ])
    .where('journals.effective_at', '>=', window.from)
    .where('journals.effective_at', '<', window.to)
    .groupBy(['journal_lines.account', 'journal_lines.currency', 'journals.entry_type'])
    .execute();
  return rows.map((row) => ({
    account: row.account,
    currency: row.currency,
    entryType: row.entry_type,
    total: Number(row.total),
  }));
}

/**
 * Per account and currency, the sum of lines of journals effective before `instant`, zero sums
 * included: the balances a window starting at `instant` carries forward.
 */
export async function balancesBefore(db: Executor, instant: string): Promise<AccountBalance[]> {
  return balancesUpTo(db, instant, { inclusive: false, serviceOnly: false });
}

/** Each account and currency with a line in a journal effective in `window`, once. */
export async function accountsBookedIn(
  db: Executor,
  window: InstantWindow,
): Promise<{ account: AccountName; currency: string }[]> {
  return linesWithJournals(db)
    .select(['journal_lines.account', 'journal_lines.currency'])
    .distinct()
    .where('journals.effective_at', '>=', window.from)
    .where('journals.effective_at', '<', window.to)
    .execute();
}

/** A journal booked after its period was closed, as the exports list it. */
export interface LateChangeJournal {
  readonly journalId: number;
  /** The closed period the change belongs to. */
  readonly period: string;
  readonly originalEffectiveAt: string;
  readonly reverses: number | null;
  readonly entryType: JournalEntryType;
  readonly description: string;
}

/** Journals effective in `window` that changed a closed period, by journal id. */
export async function lateChangesIn(
  db: Executor,
  window: InstantWindow,
): Promise<LateChangeJournal[]> {
  const rows = await db
    .selectFrom('late_changes as lc')
    .innerJoin('journals as j', 'j.id', 'lc.journal_id')
    .select([
      'j.id',
      'lc.closed_period',
      'lc.original_effective_at',
      'j.reverses_journal_id',
      'j.entry_type',
      'j.description',
    ])
    .where('j.effective_at', '>=', window.from)
    .where('j.effective_at', '<', window.to)
    .orderBy('j.id')
    .execute();
  return rows.map((r) => ({
    journalId: Number(r.id),
    period: r.closed_period,
    originalEffectiveAt: r.original_effective_at,
    reverses: r.reverses_journal_id === null ? null : Number(r.reverses_journal_id),
    entryType: r.entry_type,
    description: r.description,
  }));
}

/** How many journals the ledger holds. */
export async function journalCount(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('journals')
    .select(sql<number>`count(*)`.as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
