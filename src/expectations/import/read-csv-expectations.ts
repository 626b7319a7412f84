import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { EXPECTATION_FIELDS } from '../expectation-input.ts';
import { AMOUNT_MAJOR_HINT, ExpectationFileError, type SourceRow } from './source-row.ts';

const METADATA_PREFIX = 'metadata.';
const REQUIRED = ['expectation_id', 'direction', 'currency', 'window_from', 'window_to'] as const;

/** Refuses a header paysync cannot read whole, naming every column at fault. */
function checkHeader(header: readonly string[]): void {
  if (header.includes('amount_major'))
    throw new ExpectationFileError(`column ${AMOUNT_MAJOR_HINT}`);
  const seen = new Set<string>();
  const repeated = header.filter((name) => seen.size === seen.add(name).size);
  if (repeated.length > 0) {
    throw new ExpectationFileError(`columns named twice: ${[...new Set(repeated)].join(', ')}`);
  }
  const unknown = header.filter(
    (name) =>
      !(EXPECTATION_FIELDS as readonly string[]).includes(name) &&
      !(name.startsWith(METADATA_PREFIX) && name.length > METADATA_PREFIX.length),
  );
  if (unknown.length > 0) {
    throw new ExpectationFileError(
      `unknown column${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ')} (docs/expectations.md lists the columns; your own go in metadata.<key> columns)`,
    );
  }
  const missing: string[] = REQUIRED.filter((name) => !header.includes(name));
  if (
    !header.includes('amount') &&
    !(header.includes('amount_min') && header.includes('amount_max'))
  ) {
    missing.push('amount (or amount_min and amount_max)');
  }
  if (missing.length > 0) {
    throw new ExpectationFileError(
      `missing column${missing.length === 1 ? '' : 's'}: ${missing.join(', ')}`,
    );
  }
}

/**
 * The rows of a header-driven CSV file, streamed: one record at a time, each with the line it
 * ends on. Empty cells are "not given"; `metadata.<key>` columns go into `metadata`.
 */
export async function* readCsvExpectations(input: Readable): AsyncGenerator<SourceRow> {
  const parser = input.pipe(
    parse({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true }),
  );
  input.on('error', (error) => parser.destroy(error));
  let header: string[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      if (header === undefined) {
        header = record.map((name) => name.trim());
        checkHeader(header);
        continue;
      }
      if (record.length !== header.length) {
        yield {
          line: info.lines,
          problem: {
            field: 'row',
            reason: `has ${record.length} cells where the header has ${header.length} columns`,
          },
        };
        continue;
      }
      const raw: Record<string, unknown> = {};
      const metadata: Record<string, string> = {};
      header.forEach((name, index) => {
        const cell = record[index]!;
        if (cell.trim() === '') return;
        if (name.startsWith(METADATA_PREFIX)) metadata[name.slice(METADATA_PREFIX.length)] = cell;
        else raw[name] = cell;
      });
      if (Object.keys(metadata).length > 0) raw.metadata = metadata;
      yield { line: info.lines, raw };
    }
  } catch (error) {
    if (error instanceof ExpectationFileError) throw error;
    const csv = error as { code?: string; lines?: number; message?: string };
    if (typeof csv.code === 'string' && csv.code.startsWith('CSV_')) {
      throw new ExpectationFileError(
        `line ${csv.lines ?? '?'}: not readable as CSV: ${csv.message ?? csv.code}`,
      );
    }
    throw error;
  }
  if (header === undefined) throw new ExpectationFileError('the file is empty: no header line');
}
