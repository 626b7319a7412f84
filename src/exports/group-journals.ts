import type { ExportLine } from './export-line.ts';

/** Lines arrive ordered by journal: hands them on one journal (all its lines) at a time. */
export async function* groupJournals(
  lines: AsyncIterable<ExportLine>,
): AsyncGenerator<readonly ExportLine[]> {
  let current: ExportLine[] = [];
  for await (const line of lines) {
    if (current.length > 0 && current[0]!.journalId !== line.journalId) {
      yield current;
      current = [];
    }
    current.push(line);
  }
  if (current.length > 0) yield current;
}
