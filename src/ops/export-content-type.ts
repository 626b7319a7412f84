import type { ExportFormat } from '../exports/index.ts';

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
  hledger: 'text/plain; charset=utf-8',
  beancount: 'text/plain; charset=utf-8',
};

/** The Content-Type an export file of this format is downloaded with. */
export function exportContentType(format: ExportFormat): string {
  return CONTENT_TYPES[format];
}
