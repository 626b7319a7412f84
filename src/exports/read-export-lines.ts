import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { ExportLine, ExportWindow } from './export-line.ts';

/** @defaultValue 5000 lines per page: big enough for speed, small enough for flat memory. */
export const DEFAULT_PAGE_SIZE = 5000;

interface Cursor {
  effectiveAt: string;
  journalId: number;
  lineNo: number;
}

async function hasReceiptsTable(db: Kysely<Database>): Promise<boolean> {
  // The receipts table comes with another component's migration: read it only when present.
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const { rows } = await sql<{
      found: string | null;
    }>`select to_regclass('receipts')::text as found`.execute(db);
    return rows[0]?.found != null;
  }
  const { rows } = await sql<{
    name: string;
  }>`select name from sqlite_master where type = 'table' and name = 'receipts'`.execute(db);
  return rows.length > 0;
}

/**
 * Every journal line effective in `[from, to)`, in (effective_at, journal id, line number)
 * order, read page by page with keyset pagination: each page starts after the last row of the
 * previous one, so memory holds one page whatever the window's size, and the order is total.
 */
export async function* readExportLines(
  db: Kysely<Database>,
  window: ExportWindow,
  options: { pageSize?: number | undefined; kinds?: readonly string[] | undefined } = {},
): AsyncGenerator<ExportLine> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const receipts = await hasReceiptsTable(db);
  let cursor: Cursor | undefined;
  for (;;) {
    let query = db
      .selectFrom('journal_lines as l')
      .innerJoin('journals as j', 'j.id', 'l.journal_id')
      .leftJoin('transfers as t', (join) =>
        join.onRef('t.id', '=', 'j.resource_id').on('j.resource_kind', '=', 'transfer'),
      )
      .leftJoin('payment_intents as p', (join) =>
        join.onRef('p.id', '=', 'j.resource_id').on('j.resource_kind', '=', 'payment_intent'),
      )
      .leftJoin('late_changes as lc', 'lc.journal_id', 'j.id')
      .select([
        'lc.closed_period',
        'lc.original_effective_at',
        'j.id as journal_id',
        'l.line_no',
        'j.effective_at',
        'j.posted_at',
        'j.resource_kind',
        'j.resource_id',
        't.reference as transfer_reference',
        'p.purchase_reference',
        'j.description',
        'j.entry_type',
        'j.settlement_key',
        'j.reverses_journal_id',
        'l.account',
        'l.currency',
        'l.amount',
      ])
      .where('j.effective_at', '>=', window.from)
      .where('j.effective_at', '<', window.to);
    if (options.kinds && options.kinds.length > 0) {
      query = query.where('j.resource_kind', 'in', [...options.kinds]);
    }
    if (cursor) {
      const c = cursor;
      query = query.where(
        sql<boolean>`(j.effective_at, j.id, l.line_no) > (${c.effectiveAt}, ${c.journalId}, ${c.lineNo})`,
      );
    }
    const rows = await query
      .orderBy('j.effective_at')
      .orderBy('j.id')
      .orderBy('l.line_no')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    const shas = receipts ? await receiptShas(db, rows) : new Map<string, string>();
    for (const row of rows) {
      const reverses = row.reverses_journal_id === null ? null : Number(row.reverses_journal_id);
      const late = row.closed_period != null;
      yield {
        journalId: Number(row.journal_id),
        lineNo: Number(row.line_no),
        effectiveAt: row.effective_at,
        postedAt: row.posted_at,
        resourceKind: row.resource_kind,
        resourceId: row.resource_id,
        reference: row.transfer_reference ?? row.purchase_reference ?? null,
        description: row.description,
        entryType: late ? 'adjustment' : row.entry_type,
        settlementKey: row.settlement_key,
        reverses,
        account: row.account,
        currency: row.currency,
        amount: Number(row.amount),
        lateChangeOf: row.closed_period ?? null,
        originalEffectiveAt: row.original_effective_at ?? null,
        adjusts: late ? reverses : null,
        receiptSha256: shas.get(`${row.resource_kind}:${row.resource_id}`) ?? null,
      };
    }
    const last = rows[rows.length - 1]!;
    cursor = {
      effectiveAt: last.effective_at,
      journalId: Number(last.journal_id),
      lineNo: Number(last.line_no),
    };
    if (rows.length < pageSize) return;
  }
}

/** The latest receipt sha256 of each resource of one page. */
async function receiptShas(
  db: Kysely<Database>,
  rows: readonly { resource_kind: string; resource_id: string }[],
): Promise<Map<string, string>> {
  const ids = [...new Set(rows.map((r) => r.resource_id))];
  const found = await sql<{
    resource_kind: string;
    resource_id: string;
    sha256: string;
  }>`select resource_kind, resource_id, sha256 from receipts
     where resource_id in (${sql.join(ids)}) order by fetched_at, id`.execute(db);
  const shas = new Map<string, string>();
  for (const r of found.rows) shas.set(`${r.resource_kind}:${r.resource_id}`, r.sha256);
  return shas;
}
