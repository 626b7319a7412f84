import { createHash } from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify as stringifySync } from 'csv-stringify/sync';
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
    // csv-stringify does the quoting; it is handed batches of array records (objects cost it
    // about three times as much), and each batch leaves as one chunk, so the streams downstream
    // see a few hundred chunks instead of a million.
    const text = async function* (): AsyncGenerator<string> {
      let batch: unknown[][] = [];
      let header = true;
      const flush = () => {
        const out = stringifySync(batch, {
          header,
          columns: [...EXPORT_COLUMNS],
          record_delimiter: 'unix',
        });
        header = false;
        batch = [];
        return out;
      };
      for await (const line of counted()) {
        batch.push(Object.values(exportRecord(line, environment)));
        if (batch.length === 2000) yield flush();
      }
      // Also when empty: the header row alone.
      if (batch.length > 0 || header) yield flush();
    };
    await pipeline(Readable.from(text()), tap, output);
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
