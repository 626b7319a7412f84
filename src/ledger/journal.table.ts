import type { Generated, Selectable } from 'kysely';
import type { ObservedVia } from '../queues/job-types.ts';
import type { AccountName } from './accounts.ts';

/**
 * `settlement` and `reversal` come from items; `opening` books the service's balances when the
 * ledger starts; `adjustment` books money the service moved without a documented item.
 */
export type JournalEntryType = 'settlement' | 'reversal' | 'opening' | 'adjustment';

/**
 * A balanced set of postings for one resource. (resource_kind, resource_id, settlement_key)
 * is unique, so booking the same settlement twice is refused by the database. Append-only:
 * triggers refuse UPDATE and DELETE.
 */
export interface JournalTable {
  id: Generated<number>;
  resource_kind: string;
  resource_id: string;
  /** `settlement-<n>` or `reversal-<n>` (reversing settlement n). */
  settlement_key: string;
  entry_type: JournalEntryType;
  reverses_journal_id: number | null;
  description: string;
  /** The service's updatedAt of the state that caused the booking. */
  effective_at: string;
  /** When paysync observed that state. */
  posted_at: string;
  via: JournalVia;
  inbox_id: number | null;
}

/** How a journal came about: an observed item state, or `manual` (opening balance, adjustment). */
export type JournalVia = ObservedVia | 'manual';

/** One posting: signed integer amount, debit positive and credit negative. */
export interface JournalLineTable {
  id: Generated<number>;
  journal_id: number;
  line_no: number;
  account: AccountName;
  currency: string;
  amount: number;
}

export type JournalRow = Selectable<JournalTable>;
export type JournalLineRow = Selectable<JournalLineTable>;
