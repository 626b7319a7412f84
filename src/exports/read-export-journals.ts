import type { Kysely } from 'kysely';
import { UnsafeIntegerError, type Database } from '../db/index.ts';
import { expectationIdsOfItems } from '../expectations/index.ts';
import { journalPageReader, type JournalPageCursor } from '../ledger/index.ts';
import { latestReceiptColumn } from '../receipts/index.ts';
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

function safe(value: number): number {
  if (!Number.isSafeInteger(value)) throw new UnsafeIntegerError(String(value));
  return value;
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
  const read = journalPageReader(db, window, {
    pageSize,
    kinds,
    extraColumn: await latestReceiptColumn(db, 'j'),
  });
  let cursor: JournalPageCursor = { effectiveAt: window.from, journalId: 0 };
  for (;;) {
    const { heads, lines } = await read(cursor);
    if (heads.length === 0) return;
    const linesOf = new Map<number, ExportJournalLine[]>();
    for (const [journalId, lineNo, account, currency, amount] of lines) {
      let list = linesOf.get(journalId);
      if (!list) linesOf.set(journalId, (list = []));
      list.push({ lineNo, account, currency, amount: safe(amount) });
    }
    // The expectations each item pays: one query per page.
    const expectations = await expectationIdsOfItems(
      db,
      heads.map((h) => h[4]),
    );
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
        expectationId: expectations.get(h[4])?.join(';') ?? null,
        lines: journalLines,
      });
    }
    if (page.length > 0) yield page;
    const last = heads[heads.length - 1]!;
    cursor = { effectiveAt: last[1], journalId: last[0] };
    if (heads.length < pageSize) return;
  }
}
