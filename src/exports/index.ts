/**
 * Accounting exports: the ledger's journal lines as CSV, JSONL, an hledger journal or a
 * beancount file, streamed page by page from the database (docs/exports.md). Reads the ledger
 * and the balance snapshots; never writes the books.
 */
export { beancountAccount } from './account-names.ts';
export { neutraliseCsvText, stringifyCsv } from './csv-text.ts';
export { EXPORT_COLUMNS, exportRecord, type ExportRecord } from './export-columns.ts';
export type { ExportLine, ExportWindow } from './export-line.ts';
export { exportLineOf, type ExportJournal, type ExportJournalLine } from './export-journal.ts';
export { readExportLines } from './read-export-lines.ts';
export {
  DEFAULT_PAGE_SIZE,
  readExportJournals,
  type ReadExportOptions,
} from './read-export-journals.ts';
export {
  EXPORT_EXTENSIONS,
  EXPORT_FORMATS,
  writeExport,
  type CurrencySums,
  type ExportFormat,
  type ExportProgress,
  type ExportRequest,
  type ExportResult,
} from './write-export.ts';
export {
  closePeriod,
  frozenExport,
  periodWindow,
  PeriodError,
  type PeriodErrorCode,
  type PeriodRefusal,
  type UnreconciledDay,
  reopenPeriod,
  type ClosedPeriod,
  type ClosePeriodRequest,
  type FrozenExport,
} from './close-period.ts';
export { writeExportFile } from './write-export-file.ts';
export {
  EXPORT_FILE_ID,
  findExportFile,
  listExportFiles,
  type ExportFileEntry,
} from './export-files.ts';
export {
  runDailyExport,
  type DailyExportRequest,
  type ManifestDay,
  type ManifestFile,
} from './daily-export.ts';
