import { createHash } from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { ExportJournal } from './export-journal.ts';
import type { ExportWindow } from './export-line.ts';
import { loadLedgerContext } from './ledger-context.ts';
import { readExportJournals } from './read-export-journals.ts';
import { renderBeancount } from './render-beancount.ts';
import { renderCsv } from './render-csv.ts';
import { renderHledger } from './render-hledger.ts';
import { renderJsonl } from './render-jsonl.ts';

export const EXPORT_FORMATS = ['csv', 'jsonl', 'hledger', 'beancount'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** File name extension of each format. */
export const EXPORT_EXTENSIONS: Record<ExportFormat, string> = {
  csv: 'csv',
  jsonl: 'jsonl',
  hledger: 'journal',
  beancount: 'beancount',
};

export interface ExportRequest {
  readonly db: Kysely<Database>;
  readonly format: ExportFormat;
  /** Half-open on journal `effective_at`. */
  readonly window: ExportWindow;
  /** Written in each row, and selects the balance snapshots. */
  readonly environment: string;
  /** The books' zone: dates of hledger and beancount transactions and their days. */
  readonly timeZone: string;
  /** Only journals of these resource kinds (csv and jsonl). @defaultValue every kind */
  readonly kinds?: readonly string[];
  /** Journals per keyset page. @defaultValue 250 (DEFAULT_PAGE_SIZE) */
  readonly pageSize?: number;
  /** Called after each page is read, with the totals so far. @defaultValue none */
  readonly onProgress?: (progress: ExportProgress) => void;
}

/** How far an export has read, for a progress display. */
export interface ExportProgress {
  readonly rows: number;
  readonly journals: number;
  /** The effective time of the last journal read: how far into the window the export is. */
  readonly effectiveAt: string;
}

export interface CurrencySums {
  readonly currency: string;
  /** Sum of the positive lines, minor units. */
  readonly debits: number;
  /** Sum of the negative lines, as a positive number. */
  readonly credits: number;
}

export interface ExportResult {
  readonly format: ExportFormat;
  readonly window: ExportWindow;
  /** Journal lines written. */
  readonly rows: number;
  readonly journals: number;
  readonly sums: readonly CurrencySums[];
  /** Of the bytes written. */
  readonly sha256: string;
  readonly bytes: number;
}

/**
 * Streams the books of `window` to `output` in one format: rows come from the database page by
 * page of journals (keyset pagination) and leave through a stream with back-pressure, so memory stays flat
 * whatever the row count. Returns what a manifest states about the file.
 */
export async function writeExport(request: ExportRequest, output: Writable): Promise<ExportResult> {
  const { db, format, window, environment, timeZone } = request;
  const meta = { environment, window, timeZone };
  let rows = 0;
  let journals = 0;
  const sums = new Map<string, { debits: number; credits: number }>();
  const counted = async function* (): AsyncGenerator<readonly ExportJournal[]> {
    for await (const page of readExportJournals(db, window, {
      pageSize: request.pageSize,
      kinds: request.kinds,
    })) {
      journals += page.length;
      for (const journal of page) {
        rows += journal.lines.length;
        for (const line of journal.lines) {
          let sum = sums.get(line.currency);
          if (!sum) sums.set(line.currency, (sum = { debits: 0, credits: 0 }));
          if (line.amount > 0) sum.debits += line.amount;
          else sum.credits -= line.amount;
        }
      }
      request.onProgress?.({ rows, journals, effectiveAt: page[page.length - 1]!.effectiveAt });
      yield page;
    }
  };

  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      hash.update(buffer);
      bytes += buffer.length;
      done(null, buffer);
    },
  });

  // Every format yields one chunk per page (about 600 lines), so the streams see a few
  // hundred chunks for a million lines, and `pipeline` stops reading while the output is full.
  let text: AsyncIterable<string>;
  if (format === 'csv') text = renderCsv(counted(), meta);
  else if (format === 'jsonl') text = renderJsonl(counted(), meta);
  else {
    const context = await loadLedgerContext(db, { window, timeZone, environment });
    text =
      format === 'hledger'
        ? renderHledger(counted(), context, meta)
        : renderBeancount(counted(), context, meta);
  }
  await pipeline(Readable.from(text), tap, output);
  return {
    format,
    window,
    rows,
    journals,
    sums: [...sums.entries()]
      .map(([currency, s]) => ({ currency, ...s }))
      .sort((a, b) => a.currency.localeCompare(b.currency)),
    sha256: hash.digest('hex'),
    bytes,
  };
}
