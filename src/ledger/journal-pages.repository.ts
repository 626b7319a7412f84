import { sql, type Kysely } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import { sqliteConnectionOf, type Database } from '../db/index.ts';
import type { InstantWindow } from './ledger-reports.ts';

export interface JournalPageOptions {
  /** Journals per keyset page. */
  readonly pageSize: number;
  /** Only journals of these resource kinds; empty for every kind. */
  readonly kinds: readonly string[];
  /**
   * An SQL expression over the journal (aliased `j`) read as each head's last column, such as
   * the receipts component's latest receipt of the journal's resource. Null when absent.
   */
  readonly extraColumn?: string | undefined;
}

/**
 * A journal as both readers return it, before its lines are attached: id, effective_at,
 * posted_at, resource_kind, resource_id, reference, description, entry_type, settlement_key,
 * reverses_journal_id, closed_period, original_effective_at, and the caller's extra column
 * (null without one).
 */
export type JournalHeadRow = [
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
export type JournalLineRow = [number, number, string, string, number];

export interface JournalPageCursor {
  readonly effectiveAt: string;
  readonly journalId: number;
}

/**
 * A page whose journal ids span less than this many ids per journal reads its lines by id range;
 * a sparser page (journals booked late among others) joins through the journals instead.
 */
const DENSE_ID_SPAN = 2;

export type JournalPageReader = (
  after: JournalPageCursor,
) => Promise<{ heads: JournalHeadRow[]; lines: JournalLineRow[] }>;

/**
 * SQLite: two prepared better-sqlite3 statements returning plain arrays, run back to back while
 * holding Kysely's connection (so no other query of this process runs between them, and none
 * runs inside another's transaction). Kysely's per-row work (result objects, the BigInt →
 * number guard on every integer column) was most of the export's time.
 */
function sqlitePages(
  db: Kysely<Database>,
  sqlite: BetterSqlite3.Database,
  window: InstantWindow,
  pageSize: number,
  kinds: readonly string[],
  extraColumn: string | undefined,
): JournalPageReader {
  const kindFilter =
    kinds.length > 0 ? ` and j.resource_kind in (${kinds.map(() => '?').join(', ')})` : '';
  const heads = sqlite
    .prepare(
      `select j.id, j.effective_at, j.posted_at, j.resource_kind, j.resource_id,
         coalesce(t.reference, p.purchase_reference), j.description, j.entry_type,
         j.settlement_key, j.reverses_journal_id, lc.closed_period, lc.original_effective_at,
         ${extraColumn ?? 'null'}
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
      ) as JournalHeadRow[];
      if (page.length === 0) return { heads: page, lines: [] };
      let lowest = Infinity;
      let highest = -Infinity;
      for (const head of page) {
        if (head[0] < lowest) lowest = head[0];
        if (head[0] > highest) highest = head[0];
      }
      if (highest - lowest < DENSE_ID_SPAN * page.length) {
        return { heads: page, lines: linesInIdRange.all(lowest, highest) as JournalLineRow[] };
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
      ) as JournalLineRow[];
      return { heads: page, lines: rows };
    });
}

/** PostgreSQL (and any Kysely): the same two keyset reads through Kysely. */
function kyselyPages(
  db: Kysely<Database>,
  window: InstantWindow,
  pageSize: number,
  kinds: readonly string[],
  extraColumn: string | undefined,
): JournalPageReader {
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
        (extraColumn === undefined
          ? sql<null>`null`
          : sql<string | null>`${sql.raw(extraColumn)}`
        ).as('receipt'),
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
    const heads = rows.map((r): JournalHeadRow => [
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
      lines: lines.map((l): JournalLineRow => [
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
 * Reads the journals effective in `[window.from, window.to)` a keyset page at a time: each call
 * returns the page after `after` (heads in (effective_at, id) order, and their lines). The
 * export streams the books through it; see `readExportJournals` in src/exports.
 */
export function journalPageReader(
  db: Kysely<Database>,
  window: InstantWindow,
  options: JournalPageOptions,
): JournalPageReader {
  const sqlite = sqliteConnectionOf(db);
  return sqlite
    ? sqlitePages(db, sqlite, window, options.pageSize, options.kinds, options.extraColumn)
    : kyselyPages(db, window, options.pageSize, options.kinds, options.extraColumn);
}
