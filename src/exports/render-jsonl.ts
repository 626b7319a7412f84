import { exportRecord } from './export-columns.ts';
import type { ExportLine } from './export-line.ts';
import type { RenderMeta } from './render-meta.ts';

/** One JSON object per journal line, keys as the CSV header, one per text line. */
export async function* renderJsonl(
  lines: AsyncIterable<ExportLine>,
  meta: RenderMeta,
): AsyncGenerator<string> {
  let buffer = '';
  for await (const line of lines) {
    buffer += `${JSON.stringify(exportRecord(line, meta.environment))}\n`;
    // Batching the small strings keeps the stream's per-chunk cost off each row.
    if (buffer.length > 65_536) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer) yield buffer;
}
