import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type * as Yaml from 'yaml';

/**
 * The YAML parser, loaded on the first settings file read (and cached by `require` for the
 * next): every command loads the config, and few read a settings file, so the others never pay
 * for loading it (issue 39).
 */
function yaml(): typeof Yaml {
  return createRequire(import.meta.url)('yaml') as typeof Yaml;
}

/**
 * A settings file a variable names (`PAYSYNC_ALERTS_FILE`, `PAYSYNC_TENANTS_FILE`), read as YAML
 * (JSON is YAML too) with the line of every node kept, so a problem found later is reported at
 * its line.
 */
export interface SettingsFile {
  /** The file, resolved. */
  readonly path: string;
  /** Its content as plain values. */
  readonly value: unknown;
  /** The line of the deepest node a path reaches (`['routes', 0, 'sinks']`); 1 if none. */
  lineOf(path: readonly PropertyKey[]): number;
}

/**
 * Reads and parses the file, or says in one line why it cannot: `<variable> <file>: cannot be
 * read (<code>) → <fix>`, or `<variable> <file>, line <n>: not valid YAML or JSON: <problem>`.
 * The caller raises its own error with the message.
 */
export function readSettingsFile(
  variable: string,
  file: string,
  fixForUnreadable: string,
  cwd: string = process.cwd(),
): { readonly file: SettingsFile } | { readonly problem: string } {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).message;
    return { problem: `${variable} ${path}: cannot be read (${code}) → ${fixForUnreadable}` };
  }
  const { LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) {
    const line = syntax.linePos?.[0]?.line ?? lines.linePos(syntax.pos[0]).line;
    const problem = syntax.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return { problem: `${variable} ${path}, line ${line}: not valid YAML or JSON: ${problem}` };
  }
  const lineOf = (nodePath: readonly PropertyKey[]) => {
    for (let length = nodePath.length; length >= 0; length -= 1) {
      const node = doc.getIn(nodePath.slice(0, length) as (string | number)[], true);
      if (node && typeof node === 'object' && 'range' in node) {
        const offset = (node as Yaml.Node).range?.[0];
        return offset === undefined ? 1 : lines.linePos(offset).line;
      }
    }
    return 1;
  };
  return { file: { path, value: doc.toJS(), lineOf } };
}
