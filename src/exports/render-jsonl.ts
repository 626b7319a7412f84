import { exportRecord } from './export-columns.ts';
import { exportLineOf, type ExportJournal } from './export-journal.ts';
import type { RenderMeta } from './render-meta.ts';

/** One JSON object per journal line, keys as the CSV header, one per text line; a page per chunk. */
export async function* renderJsonl(
  pages: AsyncIterable<readonly ExportJournal[]>,
  meta: RenderMeta,
): AsyncGenerator<string> {
  for await (const page of pages) {
    let text = '';
    for (const journal of page) {
      for (const line of journal.lines) {
        text += `${JSON.stringify(exportRecord(exportLineOf(journal, line), meta.environment))}\n`;
      }
    }
    yield text;
  }
}
