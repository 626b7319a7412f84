import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/index.ts';
import { inboxInScope } from './check-sync-records.ts';
import type { AuditScope } from './audit-types.ts';
import type { StoredBooks, StoredItem, StoredJournal } from './read-books.ts';
import {
  JOURNAL_COLUMNS,
  JOURNAL_LINE_COLUMNS,
  storedJournal,
  storedLine,
  type JournalLineRow,
  type JournalRow,
} from './stored-journal.ts';

/** Keys per statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

const MIRROR_KINDS = ['payment_intent', 'transfer', 'refund', 'payment_refund'] as const;

interface ItemRow {
  kind: string;
  id: string;
  status: string;
  mode: string | null;
  amount: string;
}

function chunks<T>(values: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < values.length; start += CHUNK) {
    out.push(values.slice(start, start + CHUNK));
  }
  return out;
}

const list = (values: readonly string[]) => sql.join(values.map((v) => sql`${v}`));

/** The mirror rows of one kind (`refunds`: both kinds of refund) that `where` picks. */
function mirrorQuery(kind: string, where: RawBuilder<unknown>): RawBuilder<ItemRow> {
  if (kind === 'payment_intent') {
    return sql<ItemRow>`select 'payment_intent' as kind, id, status, mode,
      cast(amount as text) as amount from payment_intents where ${where}`;
  }
  if (kind === 'transfer') {
    return sql<ItemRow>`select 'transfer' as kind, id, status, mode,
      cast(amount as text) as amount from transfers where ${where}`;
  }
  const kindIs = kind === 'refunds' ? sql`` : sql`kind = ${kind} and`;
  return sql<ItemRow>`select kind, id, status, mode, cast(amount as text) as amount
    from refunds where ${kindIs} ${where}`;
}

/**
 * The books of the items that changed since the scope's watermark, read with the auditor's own
 * queries, each one a range of an index (docs/audit.md, "Incremental audit"):
 * - the items whose mirror row was synced since `from`, whose journals were posted after
 *   `journalIdAfter`, or that an inbox row in scope names;
 * - every journal of those items (all of them, not just the new ones, so a second settlement
 *   is seen beside an old first one), every journal after `journalIdAfter` (openings and
 *   adjustments too), the settlements their reversals point at, and all their lines;
 * - the adjustments booked after `journalIdAfter`, for the safe-integer check.
 */
export async function readChangedBooks(
  db: Kysely<Database>,
  scope: AuditScope,
): Promise<StoredBooks> {
  const items = new Map<string, StoredItem>();
  const keep = (row: ItemRow) =>
    items.set(`${row.kind} ${row.id}`, {
      kind: row.kind,
      id: row.id,
      status: row.status,
      mode: row.mode,
      amountText: row.amount,
    });
  const wanted = new Map<string, Set<string>>(MIRROR_KINDS.map((k) => [k, new Set<string>()]));
  const want = (kind: string, id: string | null) => {
    if (id !== null) wanted.get(kind)?.add(id);
  };

  // Both kinds of refund in one range of refunds_last_synced_at.
  for (const kind of ['payment_intent', 'transfer', 'refunds']) {
    const synced = await mirrorQuery(kind, sql`last_synced_at >= ${scope.from}`).execute(db);
    for (const row of synced.rows) keep(row);
  }

  const journals = new Map<string, StoredJournal>();
  const addJournals = (rows: readonly JournalRow[]) => {
    for (const row of rows) {
      if (journals.has(row.id)) continue;
      journals.set(row.id, storedJournal(row));
    }
  };
  const fresh = await sql<JournalRow>`select ${JOURNAL_COLUMNS} from journals
    where id > ${scope.journalIdAfter}`.execute(db);
  addJournals(fresh.rows);
  for (const row of fresh.rows) want(row.resource_kind, row.resource_id);

  const inbox = inboxInScope(scope);
  const named = await sql<{ resource_kind: string; resource_id: string }>`
    ${inbox.with} select distinct i.resource_kind, i.resource_id from ${inbox.from}
    where i.resource_id is not null`.execute(db);
  for (const row of named.rows) want(row.resource_kind, row.resource_id);

  for (const item of items.values()) want(item.kind, item.id);
  // Every journal of every wanted item, then the settlements their reversals name and, when
  // those belong to another item, that item too: until nothing new comes in (one round when
  // the books are right), so no check judges an item by half its journals.
  const loaded = new Map<string, Set<string>>(MIRROR_KINDS.map((k) => [k, new Set<string>()]));
  const sought = new Set<string>();
  for (;;) {
    let more = false;
    for (const [kind, ids] of wanted) {
      const done = loaded.get(kind)!;
      const todo = [...ids].filter((id) => !done.has(id));
      if (todo.length === 0) continue;
      more = true;
      for (const id of todo) done.add(id);
      const missing = todo.filter((id) => !items.has(`${kind} ${id}`));
      for (const part of chunks(missing)) {
        const rows = await mirrorQuery(kind, sql`id in (${list(part)})`).execute(db);
        for (const row of rows.rows) keep(row);
      }
      for (const part of chunks(todo)) {
        const rows = await sql<JournalRow>`select ${JOURNAL_COLUMNS} from journals
          where resource_kind = ${kind} and resource_id in (${list(part)})`.execute(db);
        addJournals(rows.rows);
      }
    }
    const targets = [...journals.values()]
      .map((j) => j.reversesJournalId)
      .filter((id): id is string => id !== null && !journals.has(id) && !sought.has(id));
    for (const id of targets) sought.add(id);
    for (const part of chunks([...new Set(targets)])) {
      more = true;
      const rows = await sql<JournalRow>`select ${JOURNAL_COLUMNS} from journals
        where id in (${sql.join(part.map((id) => sql`${BigInt(id)}`))})`.execute(db);
      addJournals(rows.rows);
      for (const row of rows.rows) want(row.resource_kind, row.resource_id);
    }
    if (!more) break;
  }

  let lineCount = 0;
  for (const part of chunks([...journals.keys()])) {
    const rows = await sql<JournalLineRow>`select ${JOURNAL_LINE_COLUMNS}
       from journal_lines
       where journal_id in (${sql.join(part.map((id) => sql`${BigInt(id)}`))})
       order by journal_id, line_no`.execute(db);
    for (const row of rows.rows) {
      lineCount += 1;
      journals.get(row.journal_id)?.lines.push(storedLine(row));
    }
  }

  const adjustments = await sql<{ id: string; amount: string }>`
    select cast(journal_id as text) as id, cast(amount as text) as amount
    from ledger_adjustments where journal_id > ${scope.journalIdAfter}`.execute(db);
  return {
    journals: new Map([...journals].sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1))),
    lineCount,
    items: [...items.values()],
    otherAmounts: adjustments.rows.map((row) => ({
      table: 'ledger_adjustments',
      id: row.id,
      amountText: row.amount,
    })),
  };
}
