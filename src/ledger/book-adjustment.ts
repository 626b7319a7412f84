import { randomBytes } from 'node:crypto';
import { Account, type AccountName, type ServiceAccountName } from './accounts.ts';
import type { Executor } from '../db/index.ts';
import { postJournal } from './journal.repository.ts';
import type { LedgerAdjustmentRow } from './ledger-adjustment.table.ts';
import { LedgerError } from './ledger-errors.ts';
import { utcMillis } from './utc-millis.ts';

export interface NewAdjustment {
  readonly environment: string;
  /** The service account the money moved on. */
  readonly account: ServiceAccountName;
  /** @defaultValue `adjustments:manual` */
  readonly counterAccount?: AccountName;
  readonly currency: string;
  /** Signed minor units: positive adds money to `account` (a top-up), negative removes it. */
  readonly amount: number;
  readonly reason: string;
  readonly bookedBy: string;
  /** When the money moved at the service. */
  readonly effectiveAt: string;
  /** When it was booked, by the caller's clock. */
  readonly postedAt: string;
}

export interface BookedAdjustment {
  readonly journalId: number;
  /** `adj_…` for an adjustment, `<environment>:<account>:<currency>` for an opening balance. */
  readonly resourceId: string;
  readonly kind: 'opening' | 'adjustment';
  readonly account: AccountName;
  readonly counterAccount: AccountName;
  readonly currency: string;
  readonly amount: number;
  readonly reason: string;
  readonly bookedBy: string;
  readonly effectiveAt: string;
  readonly createdAt: string;
}

/** Books money the service moved without a documented item, against an `adjustments:*` account. */
export async function bookAdjustment(
  db: Executor,
  input: NewAdjustment,
): Promise<BookedAdjustment> {
  const resourceId = `adj_${randomBytes(10).toString('hex')}`;
  const booked = await bookManual(db, {
    ...input,
    kind: 'adjustment',
    resourceKind: 'adjustment',
    resourceId,
    settlementKey: 'adjustment-1',
    counterAccount: input.counterAccount ?? Account.adjustmentsManual,
  });
  if (!booked) throw new LedgerError('invalid_input', `adjustment ${resourceId} collided`);
  return booked;
}

export interface NewOpeningBalance {
  readonly environment: string;
  readonly account: ServiceAccountName;
  readonly currency: string;
  readonly amount: number;
  readonly effectiveAt: string;
  readonly reason: string;
  readonly bookedBy: string;
  /**
   * Which opening this is for the account: 1 for the automatic one, a higher number only when a
   * person asks for it again. The unique journal key makes a second automatic opening a no-op.
   * @defaultValue 1
   */
  readonly sequence?: number;
  /** When it was booked, by the caller's clock. */
  readonly postedAt: string;
}

/**
 * Books the service's balance of one account as the ledger's starting point, against
 * `equity:opening-balances`. Returns undefined when that opening is already booked. A zero
 * balance books nothing (a journal line is never zero) and also returns undefined.
 */
export async function bookOpeningBalance(
  db: Executor,
  input: NewOpeningBalance,
): Promise<BookedAdjustment | undefined> {
  if (input.amount === 0) return undefined;
  return bookManual(db, {
    ...input,
    kind: 'opening',
    resourceKind: 'opening_balance',
    resourceId: `${input.environment}:${input.account}:${input.currency}`,
    settlementKey: `opening-${input.sequence ?? 1}`,
    counterAccount: Account.equityOpeningBalances,
  });
}

/** Whether any opening balance was ever booked in this environment. */
export async function hasOpeningBalances(db: Executor, environment: string): Promise<boolean> {
  const row = await db
    .selectFrom('ledger_adjustments')
    .select('journal_id')
    .where('environment', '=', environment)
    .where('kind', '=', 'opening')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The highest opening sequence booked for any account, so an explicit re-open goes above it. */
export async function lastOpeningSequence(db: Executor, environment: string): Promise<number> {
  const rows = await db
    .selectFrom('journals')
    .select('settlement_key')
    .where('resource_kind', '=', 'opening_balance')
    .where('resource_id', 'like', `${environment}:%`)
    .execute();
  return rows.reduce((max, row) => Math.max(max, Number(row.settlement_key.split('-')[1] ?? 0)), 0);
}

/** Adjustments and opening balances, oldest first; optionally only those effective in a window. */
export async function listAdjustments(
  db: Executor,
  options: { environment: string; from?: string; to?: string; account?: AccountName } = {
    environment: 'sandbox',
  },
): Promise<BookedAdjustment[]> {
  let query = db
    .selectFrom('ledger_adjustments')
    .innerJoin('journals', 'journals.id', 'ledger_adjustments.journal_id')
    .selectAll('ledger_adjustments')
    .select('journals.resource_id')
    .where('ledger_adjustments.environment', '=', options.environment);
  if (options.from) query = query.where('ledger_adjustments.effective_at', '>=', options.from);
  if (options.to) query = query.where('ledger_adjustments.effective_at', '<', options.to);
  if (options.account) query = query.where('ledger_adjustments.account', '=', options.account);
  const rows = await query.orderBy('ledger_adjustments.effective_at').execute();
  return rows.map((row) => toBooked(row, row.resource_id));
}

/** The adjustment booked as journal resource `adj_…`, if any. */
export async function findAdjustment(
  db: Executor,
  resourceId: string,
): Promise<BookedAdjustment | undefined> {
  const row = await db
    .selectFrom('ledger_adjustments')
    .innerJoin('journals', 'journals.id', 'ledger_adjustments.journal_id')
    .selectAll('ledger_adjustments')
    .select('journals.resource_id')
    .where('journals.resource_id', '=', resourceId)
    .executeTakeFirst();
  return row ? toBooked(row, row.resource_id) : undefined;
}

interface ManualBooking {
  readonly kind: 'opening' | 'adjustment';
  readonly resourceKind: 'opening_balance' | 'adjustment';
  readonly resourceId: string;
  readonly settlementKey: string;
  readonly environment: string;
  readonly account: ServiceAccountName;
  readonly counterAccount: AccountName;
  readonly currency: string;
  readonly amount: number;
  readonly reason: string;
  readonly bookedBy: string;
  readonly effectiveAt: string;
  readonly postedAt: string;
}

async function bookManual(
  db: Executor,
  input: ManualBooking,
): Promise<BookedAdjustment | undefined> {
  if (!Number.isSafeInteger(input.amount) || input.amount === 0) {
    throw new LedgerError(
      'invalid_input',
      `${input.kind} amount ${input.amount} is not a non-zero integer in minor units`,
    );
  }
  const effectiveAt = utcMillis(input.effectiveAt, 'effectiveAt');
  const createdAt = utcMillis(input.postedAt, 'postedAt');
  const journal = await postJournal(db, {
    resourceKind: input.resourceKind,
    resourceId: input.resourceId,
    settlementKey: input.settlementKey,
    entryType: input.kind,
    description: `${input.kind === 'opening' ? 'Opening balance' : 'Adjustment'}: ${input.reason}`,
    effectiveAt,
    postedAt: createdAt,
    via: 'manual',
    lines: [
      { account: input.account, currency: input.currency, amount: input.amount },
      { account: input.counterAccount, currency: input.currency, amount: -input.amount },
    ],
  });
  if (!journal) return undefined;
  const row: LedgerAdjustmentRow = {
    journal_id: journal.id,
    kind: input.kind,
    environment: input.environment,
    account: input.account,
    counter_account: input.counterAccount,
    currency: input.currency,
    amount: input.amount,
    reason: input.reason,
    booked_by: input.bookedBy,
    effective_at: effectiveAt,
    created_at: createdAt,
  };
  await db.insertInto('ledger_adjustments').values(row).execute();
  return toBooked(row, input.resourceId);
}

function toBooked(row: LedgerAdjustmentRow, resourceId: string): BookedAdjustment {
  return {
    journalId: Number(row.journal_id),
    resourceId,
    kind: row.kind,
    account: row.account,
    counterAccount: row.counter_account,
    currency: row.currency,
    amount: Number(row.amount),
    reason: row.reason,
    bookedBy: row.booked_by,
    effectiveAt: row.effective_at,
    createdAt: row.created_at,
  };
}
