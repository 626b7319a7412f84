import { createReadStream, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { readCsvExpectations } from './read-csv-expectations.ts';
import { readJsonlExpectations } from './read-jsonl-expectations.ts';
import { ExpectationFileError, type SourceRow } from './source-row.ts';

/** A file of expectations opened for streaming, with what a progress bar needs. */
export interface ExpectationFile {
  readonly format: 'csv' | 'jsonl';
  /** `import:<file name>`: the history's source of its rows. */
  readonly source: string;
  readonly size: number;
  readonly rows: AsyncIterable<SourceRow>;
  bytesRead(): number;
}

/** Opens a `.csv` or `.jsonl` (`.ndjson`) file; refuses any other, a missing one or a folder. */
export function openExpectationFile(path: string): ExpectationFile {
  const extension = extname(path).toLowerCase();
  const format =
    extension === '.csv'
      ? 'csv'
      : extension === '.jsonl' || extension === '.ndjson'
        ? 'jsonl'
        : undefined;
  if (format === undefined) {
    throw new ExpectationFileError(
      `${path}: the file name must end in .csv or .jsonl, which says its format (docs/expectations.md)`,
    );
  }
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new ExpectationFileError(`${path} is not a file`);
    size = stat.size;
  } catch (error) {
    if (error instanceof ExpectationFileError) throw error;
    throw new ExpectationFileError(`${path}: cannot read it (${(error as Error).message})`);
  }
  const stream = createReadStream(path);
  return {
    format,
    source: `import:${basename(path)}`,
    size,
    rows: format === 'csv' ? readCsvExpectations(stream) : readJsonlExpectations(stream),
    bytesRead: () => stream.bytesRead,
  };
}
