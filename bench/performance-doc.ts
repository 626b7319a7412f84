import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Appends one row to a benchmark's table in docs/performance.md: the table ends at `marker`,
 * and a missing table (section heading and header lines) is added at the end of the page first.
 * The row goes before the blank line prettier keeps above the marker. Returns the file written.
 */
export function appendPerformanceRow(table: {
  readonly marker: string;
  readonly header: readonly string[];
  readonly row: string;
}): string {
  const file = 'docs/performance.md';
  const current = readFileSync(file, 'utf8');
  const text = current.includes(table.marker)
    ? current
    : `${current.trimEnd()}\n\n${[...table.header, table.marker].join('\n')}\n`;
  const at = text.indexOf(table.marker);
  writeFileSync(
    file,
    `${text.slice(0, at).replace(/\n*$/, '')}\n${table.row}\n\n${text.slice(at)}`,
  );
  return file;
}
