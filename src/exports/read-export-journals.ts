import { sql, type Kysely } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import { dialectOfDb, sqliteConnectionOf, UnsafeIntegerError, type Database } from '../db/index.ts';
import type { ExportJournal, ExportJournalLine } from './export-journal.ts';
import type { ExportWindow } from './export-line.ts';

/** @defaultValue 250 journals (about 600 lines) per page: fast, and flat in memory. */
export const DEFAULT_PAGE_SIZE = 250;

export interface ReadExportOptions {
  /** Journals per keyset page. @defaultValue {@link DEFAULT_PAGE_SIZE} */
  readonly pageSize?: number | undefined;
  /** Only journals of these resource kinds. @defaultValue every kind */
  readonly kinds?: readonly string[] | undefined;
}

/**
 * A journal as both readers return it, before its lines are attached: id, effective_at,
 * posted_at, resource_kind, resource_id, reference, description, entry_type, settlement_key,
 * reverses_journal_id, closed_period, original_effective_at, receipt sha256.
 */
type HeadRow = [
  number,
  string,
  string,
  string,
  string,
  string | null,
  string,
  string,
  string,
  number | null,
  string | null,
  string | null,
  string | null,
];
/** journal_id, line_no, account, currency, amount. */
type LineRow = [number, number, string, string, number];

interface Cursor {
  readonly effectiveAt: string;
  readonly journalId: number;
}

/**
 * A page whose journal ids span less than this many ids per journal reads its lines by id range;
 * a sparser page (journals booked late among others) joins through the journals instead.
 */
const DENSE_ID_SPAN = 2;

type PageReader = (after: Cursor) => Promise<{ heads: HeadRow[]; lines: LineRow[] }>;

const RECEIPT = `(select r.sha256 from receipts r where r.resource_kind = j.resource_kind and r.resource_id = j.resource_id order by r.fetched_at desc, r.id desc limit 1)`;

async function hasReceiptsTable(db: Kysely<Database>): Promise<boolean> {
  // The receipts table comes with another component's migration: read it only when present.
  if (dialectOfDb(db) === 'postgres') {
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

function safe(value: number): number {
  if (!Number.isSafeInteger(value)) throw new UnsafeIntegerError(String(value));
  return value;
}

/**
 * SQLite: two prepared better-sqlite3 statements returning plain arrays, run back to back while
 * holding Kysely's connection (so no other query of this process runs between them, and none
 * runs inside another's transaction). Kysely's per-row work (result objects, the BigInt →
 * number guard on every integer column) was most of the export's time.
 */
function sqlitePages(
  db: Kysely<Database>,
  sqlite: BetterSqlite3.Database,
  window: ExportWindow,
  pageSize: number,
  kinds: readonly string[],
  receipts: boolean,
): PageReader {
  const kindFilter =
    kinds.length > 0 ? ` and j.resource_kind in (${kinds.map(() => '?').join(', ')})` : '';
  const heads = sqlite
    .prepare(
      `select j.id, j.effective_at, j.posted_at, j.resource_kind, j.resource_id,
         coalesce(t.reference, p.purchase_reference), j.description, j.entry_type,
         j.settlement_key, j.reverses_journal_id, lc.closed_period, lc.original_effective_at,
         ${receipts ? RECEIPT : 'null'}
       from journals j
       left join transfers t on t.id = j.resource_id and j.resource_kind = 'transfer'
       left join payment_intents p on p.id = j.resource_id and j.resource_kind = 'payment_intent'
       left join late_changes lc on lc.journal_id = j.id
       where j.effective_at >= ? and j.effective_at < ? and (j.effective_at > ? or j.id > ?)${kindFilter}
       order by j.effective_at, j.id limit ?`,
    )
    .raw(true)
    .safeIntegers(false);
  // The lines of exactly the journals of one page: the same order, between its first and last.
  const lines = sqlite
    .prepare(
      `select l.journal_id, l.line_no, l.account, l.currency, l.amount
       from journals j join journal_lines l on l.journal_id = j.id
       where j.effective_at >= ? and j.effective_at <= ?
         and (j.effective_at > ? or j.id >= ?) and (j.effective_at < ? or j.id <= ?)${kindFilter}
       order by j.effective_at, j.id, l.line_no`,
    )
    .raw(true)
    .safeIntegers(false);
  // Journals are mostly booked in the order of their effective times, so a page's ids are
  // usually a dense range: then its lines are one seek on (journal_id, line_no), with no join
  // back to journals. Lines of ids in the range but not on the page are read and left unused.
  const linesInIdRange = sqlite
    .prepare(
      `select journal_id, line_no, account, currency, amount from journal_lines
       where journal_id >= ? and journal_id <= ? order by journal_id, line_no`,
    )
    .raw(true)
    .safeIntegers(false);
  return (after) =>
    db.connection().execute(async () => {
      const page = heads.all(
        after.effectiveAt,
        window.to,
        after.effectiveAt,
        after.journalId,
        ...kinds,
        pageSize,
      ) as HeadRow[];
      if (page.length === 0) return { heads: page, lines: [] };
      let lowest = Infinity;
      let highest = -Infinity;
      for (const head of page) {
        if (head[0] < lowest) lowest = head[0];
        if (head[0] > highest) highest = head[0];
      }
      if (highest - lowest < DENSE_ID_SPAN * page.length) {
        return { heads: page, lines: linesInIdRange.all(lowest, highest) as LineRow[] };
      }
      const first = page[0]!;
      const last = page[page.length - 1]!;
      const rows = lines.all(
        first[1],
        last[1],
        first[1],
        first[0],
        last[1],
        last[0],
        ...kinds,
      ) as LineRow[];
      return { heads: page, lines: rows };
    });
}

/** PostgreSQL (and any Kysely): the same two keyset reads through Kysely. */
function kyselyPages(
  db: Kysely<Database>,
  window: ExportWindow,
  pageSize: number,
  kinds: readonly string[],
  receipts: boolean,
): PageReader {
  return async (after) => {
    const rows = await db
      .selectFrom('journals as j')
      .leftJoin('transfers as t', (join) =>
        join.onRef('t.id', '=', 'j.resource_id').on('j.resource_kind', '=', 'transfer'),
      )
      .leftJoin('payment_intents as p', (join) =>
        join.onRef('p.id', '=', 'j.resource_id').on('j.resource_kind', '=', 'payment_intent'),
      )
      .leftJoin('late_changes as lc', 'lc.journal_id', 'j.id')
      .select([
        'j.id',
        'j.effective_at',
        'j.posted_at',
        'j.resource_kind',
        'j.resource_id',
        sql<string | null>`coalesce(t.reference, p.purchase_reference)`.as('reference'),
        'j.description',
        'j.entry_type',
        'j.settlement_key',
        'j.reverses_journal_id',
        'lc.closed_period',
        'lc.original_effective_at',
        (receipts ? sql<string | null>`${sql.raw(RECEIPT)}` : sql<null>`null`).as('receipt'),
      ])
      .where('j.effective_at', '>=', after.effectiveAt)
      .where('j.effective_at', '<', window.to)
      .where((eb) =>
        eb.or([eb('j.effective_at', '>', after.effectiveAt), eb('j.id', '>', after.journalId)]),
      )
      .$if(kinds.length > 0, (qb) => qb.where('j.resource_kind', 'in', [...kinds]))
      .orderBy('j.effective_at')
      .orderBy('j.id')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return { heads: [], lines: [] };
    const heads = rows.map((r): HeadRow => [
      Number(r.id),
      r.effective_at,
      r.posted_at,
      r.resource_kind,
      r.resource_id,
      r.reference,
      r.description,
      r.entry_type,
      r.settlement_key,
      r.reverses_journal_id === null ? null : Number(r.reverses_journal_id),
      r.closed_period,
      r.original_effective_at,
      r.receipt,
    ]);
    const lines = await db
      .selectFrom('journal_lines')
      .select(['journal_id', 'line_no', 'account', 'currency', 'amount'])
      .where(
        'journal_id',
        'in',
        heads.map((h) => h[0]),
      )
      .orderBy('journal_id')
      .orderBy('line_no')
      .execute();
    return {
      heads,
      lines: lines.map((l): LineRow => [
        Number(l.journal_id),
        Number(l.line_no),
        l.account,
        l.currency,
        Number(l.amount),
      ]),
    };
  };
}

/**
 * Every journal effective in `[from, to)` with its lines, in (effective_at, journal id) order
 * and lines by number, one page of journals at a time. Keyset pagination: each page starts
 * after the last journal of the previous one (`effective_at >= last and (effective_at > last
 * or id > last id)`, which the `journals_effective_at` index serves as a seek), so memory holds
 * one page whatever the window's size, and the order is total.
 */
export async function* readExportJournals(
  db: Kysely<Database>,
  window: ExportWindow,
  options: ReadExportOptions = {},
): AsyncGenerator<readonly ExportJournal[]> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const kinds = options.kinds ?? [];
  const receipts = await hasReceiptsTable(db);
  const sqlite = sqliteConnectionOf(db);
  const read = sqlite
    ? sqlitePages(db, sqlite, window, pageSize, kinds, receipts)
    : kyselyPages(db, window, pageSize, kinds, receipts);
  let cursor: Cursor = { effectiveAt: window.from, journalId: 0 };
  for (;;) {
    const { heads, lines } = await read(cursor);
    if (heads.length === 0) return;
    const linesOf = new Map<number, ExportJournalLine[]>();
    for (const [journalId, lineNo, account, currency, amount] of lines) {
      let list = linesOf.get(journalId);
      if (!list) linesOf.set(journalId, (list = []));
      list.push({ lineNo, account, currency, amount: safe(amount) });
    }
    const page: ExportJournal[] = [];
    for (const h of heads) {
      const journalLines = linesOf.get(h[0]);
      if (!journalLines) continue;
      const reverses = h[9];
      const late = h[10] !== null;
      page.push({
        journalId: safe(h[0]),
        effectiveAt: h[1],
        postedAt: h[2],
        resourceKind: h[3],
        resourceId: h[4],
        reference: h[5],
        description: h[6],
        // A late change to a closed period is presented as an adjustment of the original.
        entryType: late ? 'adjustment' : h[7],
        settlementKey: h[8],
        reverses,
        lateChangeOf: h[10],
        originalEffectiveAt: h[11],
        adjusts: late ? reverses : null,
        receiptSha256: h[12],
        lines: journalLines,
      });
    }
    if (page.length > 0) yield page;
    const last = heads[heads.length - 1]!;
    cursor = { effectiveAt: last[1], journalId: last[0] };
    if (heads.length < pageSize) return;
  }
}
