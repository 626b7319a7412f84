import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.ts';

/**
 * The books as stored, read with the auditor's own queries (never through the ledger's
 * repositories: the judge must not share the code it judges). Ids and amounts are read as
 * text, so a value outside JavaScript's safe range reaches the auditor intact instead of
 * being refused or rounded by the driver.
 */
export interface StoredJournal {
  readonly id: string;
  readonly resourceKind: string;
  readonly resourceId: string;
  readonly settlementKey: string;
  readonly entryType: string;
  readonly reversesJournalId: string | null;
  readonly lines: StoredLine[];
}

export interface StoredLine {
  readonly lineNo: number;
  readonly account: string;
  readonly currency: string;
  /** Exactly as stored, as text. */
  readonly amountText: string;
}

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

export async function readBooks(db: Kysely<Database>): Promise<StoredBooks> {
  const journalRows = await sql<{
    id: string;
    resource_kind: string;
    resource_id: string;
    settlement_key: string;
    entry_type: string;
    reverses: string | null;
  }>`select cast(id as text) as id, resource_kind, resource_id, settlement_key, entry_type,
       cast(reverses_journal_id as text) as reverses
     from journals order by journals.id`.execute(db);
  const journals = new Map<string, StoredJournal>();
  for (const row of journalRows.rows) {
    journals.set(row.id, {
      id: row.id,
      resourceKind: row.resource_kind,
      resourceId: row.resource_id,
      settlementKey: row.settlement_key,
      entryType: row.entry_type,
      reversesJournalId: row.reverses,
      lines: [],
    });
  }
  const lineRows = await sql<{
    journal_id: string;
    line_no: string;
    account: string;
    currency: string;
    amount: string;
  }>`select cast(journal_id as text) as journal_id, cast(line_no as text) as line_no, account,
       currency, cast(amount as text) as amount
     from journal_lines`.execute(db);
  for (const row of lineRows.rows) {
    const line = {
      lineNo: Number(row.line_no),
      account: row.account,
      currency: row.currency,
      amountText: row.amount,
    };
    const journal = journals.get(row.journal_id);
    if (journal) journal.lines.push(line);
    // A line whose journal is gone cannot exist (foreign key); nothing to attach it to.
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
    kind: row.kind,
    id: row.id,
    status: row.status,
    mode: row.mode,
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
    lineCount: lineRows.rows.length,
    items,
    otherAmounts: others.rows.map((row) => ({
      table: row.source,
      id: row.id,
      amountText: row.amount,
    })),
  };
}
