import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import {
  JOURNAL_COLUMNS,
  JOURNAL_LINE_COLUMNS,
  storedJournal,
  storedLine,
  type JournalLineRow,
  type JournalRow,
  type StoredJournal,
  type WordKeeper,
} from './stored-journal.ts';

/**
 * The books as stored, read with the auditor's own queries (never through the ledger's
 * repositories: the judge must not share the code it judges). Ids and amounts are read as
 * text, so a value outside JavaScript's safe range reaches the auditor intact instead of
 * being refused or rounded by the driver.
 */
export type { StoredJournal, StoredLine } from './stored-journal.ts';

export interface StoredItem {
  readonly kind: string;
  readonly id: string;
  readonly status: string;
  readonly mode: string | null;
  readonly amountText: string;
}

/** A money column of another table, for the safe-integer check. */
export interface StoredAmount {
  readonly table: string;
  readonly id: string;
  readonly amountText: string;
}

export interface StoredBooks {
  readonly journals: Map<string, StoredJournal>;
  readonly lineCount: number;
  readonly items: StoredItem[];
  readonly otherAmounts: StoredAmount[];
}

/** Journal ids per statement of the full read: bounded result arrays, not one of every row. */
const PAGE = 20_000;

/**
 * One copy of each repeated word (account, currency, kind, key, type, status): the driver
 * returns a new string per row, and millions of copies of `service:collection` are most of the
 * memory a full audit holds.
 */
function interner(): WordKeeper {
  const seen = new Map<string, string>();
  return (text) => {
    const known = seen.get(text);
    if (known !== undefined) return known;
    seen.set(text, text);
    return text;
  };
}

export async function readBooks(db: Kysely<Database>): Promise<StoredBooks> {
  const word = interner();
  const bounds = await sql<{ low: string | null; high: string | null }>`
    select cast(min(id) as text) as low, cast(max(id) as text) as high from journals`.execute(db);
  const low = BigInt(bounds.rows[0]?.low ?? '1');
  const high = BigInt(bounds.rows[0]?.high ?? '0');
  const journals = new Map<string, StoredJournal>();
  let lineCount = 0;
  // Pages of journal ids (primary key and the lines' unique (journal_id, line_no) ranges).
  for (let from = low - 1n; from < high; from += BigInt(PAGE)) {
    const to = from + BigInt(PAGE);
    const journalRows = await sql<JournalRow>`select ${JOURNAL_COLUMNS}
       from journals where id > ${from} and id <= ${to} order by journals.id`.execute(db);
    for (const row of journalRows.rows) journals.set(row.id, storedJournal(row, word));
    const lineRows = await sql<JournalLineRow>`select ${JOURNAL_LINE_COLUMNS}
       from journal_lines where journal_id > ${from} and journal_id <= ${to}`.execute(db);
    for (const row of lineRows.rows) {
      lineCount += 1;
      // A line whose journal is gone cannot exist (foreign key); nothing to attach it to.
      journals.get(row.journal_id)?.lines.push(storedLine(row, word));
    }
  }
  const itemRows = await sql<{
    kind: string;
    id: string;
    status: string;
    mode: string | null;
    amount: string;
  }>`select 'payment_intent' as kind, id, status, mode, cast(amount as text) as amount
       from payment_intents
     union all
     select 'transfer' as kind, id, status, mode, cast(amount as text) as amount from transfers
     union all
     select kind, id, status, mode, cast(amount as text) as amount from refunds`.execute(db);
  const items = itemRows.rows.map((row) => ({
    kind: word(row.kind),
    id: row.id,
    status: word(row.status),
    mode: row.mode === null ? null : word(row.mode),
    amountText: row.amount,
  }));
  const others = await sql<{ source: string; id: string; amount: string }>`
    select 'ledger_adjustments' as source, cast(journal_id as text) as id,
      cast(amount as text) as amount from ledger_adjustments
    union all
    select 'balance_snapshots' as source, cast(id as text) as id, cast(amount as text) as amount
      from balance_snapshots`.execute(db);
  return {
    journals,
    lineCount,
    items,
    otherAmounts: others.rows.map((row) => ({
      table: row.source,
      id: row.id,
      amountText: row.amount,
    })),
  };
}
