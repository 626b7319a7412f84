import { sql } from 'kysely';

/**
 * The books as stored, read with the auditor's own queries (never through the ledger's
 * repositories): one journal and its lines.
 */
export interface StoredJournal {
  readonly id: string;
  readonly resourceKind: string;
  readonly resourceId: string;
  readonly settlementKey: string;
  readonly entryType: string;
  readonly reversesJournalId: string | null;
  /** The UTC day of its `effective_at` (`YYYY-MM-DD`), the day total its lines count in. */
  readonly day: string;
  readonly lines: StoredLine[];
}

export interface StoredLine {
  readonly lineNo: number;
  readonly account: string;
  readonly currency: string;
  /** Exactly as stored, as text. */
  readonly amountText: string;
}

/** A journal as the auditor's queries read it: ids as text, the day of its `effective_at`. */
export interface JournalRow {
  readonly id: string;
  readonly resource_kind: string;
  readonly resource_id: string;
  readonly settlement_key: string;
  readonly entry_type: string;
  readonly reverses: string | null;
  readonly day: string;
}

/** The select list of a {@link JournalRow} over `journals`. */
export const JOURNAL_COLUMNS = sql`cast(id as text) as id, resource_kind, resource_id, settlement_key,
  entry_type, cast(reverses_journal_id as text) as reverses, substr(effective_at, 1, 10) as day`;

/** A journal line as the auditor's queries read it: numbers as text. */
export interface JournalLineRow {
  readonly journal_id: string;
  readonly line_no: string;
  readonly account: string;
  readonly currency: string;
  readonly amount: string;
}

/** The select list of a {@link JournalLineRow} over `journal_lines`. */
export const JOURNAL_LINE_COLUMNS = sql`cast(journal_id as text) as journal_id,
  cast(line_no as text) as line_no, account, currency, cast(amount as text) as amount`;

/** Keeps a repeated word (kind, key, type, day, account, currency) as it is, or as one shared copy. */
export type WordKeeper = (text: string) => string;

const asIs: WordKeeper = (text) => text;

/** A journal row as the checks judge it, its lines still to come. */
export function storedJournal(row: JournalRow, word: WordKeeper = asIs): StoredJournal {
  return {
    id: row.id,
    resourceKind: word(row.resource_kind),
    resourceId: row.resource_id,
    settlementKey: word(row.settlement_key),
    entryType: word(row.entry_type),
    reversesJournalId: row.reverses,
    day: word(row.day),
    lines: [],
  };
}

/** A journal line as the checks judge it; the amount exactly as stored. */
export function storedLine(row: JournalLineRow, word: WordKeeper = asIs): StoredLine {
  return {
    lineNo: Number(row.line_no),
    account: word(row.account),
    currency: word(row.currency),
    amountText: row.amount,
  };
}
