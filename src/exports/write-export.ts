import { createHash } from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { EXPORT_COLUMNS, exportRecord } from './export-columns.ts';
import type { ExportLine, ExportWindow } from './export-line.ts';
import { loadLedgerContext } from './ledger-context.ts';
import { readExportLines } from './read-export-lines.ts';
import { renderBeancount } from './render-beancount.ts';
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
  /** Lines per keyset page. @defaultValue 5000 */
  readonly pageSize?: number;
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

async function* batched(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let buffer = '';
  for await (const chunk of chunks) {
    buffer += chunk;
    if (buffer.length > 65_536) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer) yield buffer;
}

/**
 * Streams the books of `window` to `output` in one format: rows come from the database page by
 * page (keyset pagination) and leave through a stream with back-pressure, so memory stays flat
 * whatever the row count. Returns what a manifest states about the file.
 */
export async function writeExport(request: ExportRequest, output: Writable): Promise<ExportResult> {
  const { db, format, window, environment, timeZone } = request;
  const meta = { environment, window, timeZone };
  let rows = 0;
  let lastJournal = -1;
  let journals = 0;
  const sums = new Map<string, { debits: number; credits: number }>();
  const counted = async function* (): AsyncGenerator<ExportLine> {
    for await (const line of readExportLines(db, window, {
      pageSize: request.pageSize,
      kinds: request.kinds,
    })) {
      rows += 1;
      if (line.journalId !== lastJournal) {
        journals += 1;
        lastJournal = line.journalId;
      }
      const sum = sums.get(line.currency) ?? { debits: 0, credits: 0 };
      if (line.amount > 0) sum.debits += line.amount;
      else sum.credits -= line.amount;
      sums.set(line.currency, sum);
      yield line;
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

  if (format === 'csv') {
    // Arrays, not objects: csv-stringify maps an object to its columns at about a third of
    // the speed (bench/export.ts).
    const records = async function* () {
      for await (const line of counted()) yield Object.values(exportRecord(line, environment));
    };
    await pipeline(
      Readable.from(records()),
      stringify({
        header: true,
        columns: [...EXPORT_COLUMNS],
        eof: true,
        record_delimiter: 'unix',
      }),
      tap,
      output,
    );
  } else {
    let text: AsyncIterable<string>;
    if (format === 'jsonl') text = renderJsonl(counted(), meta);
    else {
      const context = await loadLedgerContext(db, { window, timeZone, environment });
      text = batched(
        format === 'hledger'
          ? renderHledger(counted(), context, meta)
          : renderBeancount(counted(), context, meta),
      );
    }
    await pipeline(Readable.from(text), tap, output);
  }
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
