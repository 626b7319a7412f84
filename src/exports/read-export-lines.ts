import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { exportLineOf } from './export-journal.ts';
import type { ExportLine, ExportWindow } from './export-line.ts';
import { readExportJournals, type ReadExportOptions } from './read-export-journals.ts';

/**
 * Every journal line effective in `[from, to)`, in (effective_at, journal id, line number)
 * order, one flat object per line: the simple view of {@link readExportJournals}, which the
 * formats read directly.
 */
export async function* readExportLines(
  db: Kysely<Database>,
  window: ExportWindow,
  options: ReadExportOptions = {},
): AsyncGenerator<ExportLine> {
  for await (const page of readExportJournals(db, window, options)) {
    for (const journal of page) {
      for (const line of journal.lines) yield exportLineOf(journal, line);
    }
  }
}
