import { terminalText } from './terminal-text.ts';

/** Label and value pairs, one per line, the labels padded to the widest; values made safe. */
export function renderFields(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${terminalText(value)}`).join('\n');
}
