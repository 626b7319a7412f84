import { sql } from 'kysely';
import type { AccountName } from './accounts.ts';
import type { Executor } from './executor.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';

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

/** Per account and currency, the sum of every line ever booked. */
export async function accountBalances(db: Executor): Promise<AccountBalance[]> {
  const rows = await db
    .selectFrom('journal_lines')
    .select(['account', 'currency', (eb) => eb.fn.sum<number>('amount').as('balance')])
    .groupBy(['account', 'currency'])
    .orderBy('account')
    .orderBy('currency')
    .execute();
  return rows.map((row) => ({
    account: row.account,
    currency: row.currency,
    balance: Number(row.balance),
  }));
}

/** How many mirrored resources are in each status, per kind. */
export async function countsByStatus(db: Executor): Promise<StatusCount[]> {
  const count = sql<number>`count(*)`.as('count');
  // One after the other: inside a transaction there is one connection to share.
  const intents = await db
    .selectFrom('payment_intents')
    .select(['status', count])
    .groupBy('status')
    .execute();
  const transfers = await db
    .selectFrom('transfers')
    .select(['status', count])
    .groupBy('status')
    .execute();
  const refunds = await db
    .selectFrom('refunds')
    .select(['kind', 'status', count])
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
  const rows = await db
    .selectFrom('journal_lines')
    .innerJoin('journals', 'journals.id', 'journal_lines.journal_id')
    .select([
      'journal_lines.account',
      'journal_lines.currency',
      (eb) => eb.fn.sum<number>('journal_lines.amount').as('balance'),
    ])
    .where('journal_lines.account', 'like', 'service:%' as AccountName)
    .where('journals.effective_at', '<=', instant)
    .groupBy(['journal_lines.account', 'journal_lines.currency'])
    .orderBy('journal_lines.account')
    .orderBy('journal_lines.currency')
    .execute();
  return rows.map((row) => ({
    account: row.account,
    currency: row.currency,
    balance: Number(row.balance),
  }));
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
  const rows = await db
    .selectFrom('journal_lines')
    .innerJoin('journals', 'journals.id', 'journal_lines.journal_id')
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
