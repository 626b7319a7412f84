import { terminalText } from './terminal-text.ts';

export interface TableColumn<Row> {
  readonly header: string;
  readonly value: (row: Row) => string;
  /** Numbers read best right-aligned. @defaultValue `'left'` */
  readonly align?: 'left' | 'right';
}

/**
 * A plain-text table with a header row, columns padded to their widest cell; every cell passes
 * through terminalText (a cell may hold text the service or the merchant wrote).
 */
export function renderTable<Row>(
  columns: readonly TableColumn<Row>[],
  rows: readonly Row[],
): string {
  const cells = rows.map((row) => columns.map((column) => terminalText(column.value(row))));
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...cells.map((line) => (line[index] ?? '').length)),
  );
  const pad = (text: string, index: number): string => {
    const width = widths[index] ?? 0;
    return columns[index]?.align === 'right' ? text.padStart(width) : text.padEnd(width);
  };
  const lines = [
    columns.map((column, index) => pad(column.header, index)),
    ...cells.map((line) => line.map(pad)),
  ];
  return lines.map((line) => line.join('  ').trimEnd()).join('\n');
}
