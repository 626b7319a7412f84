import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * The command-line manners every benchmark shares. Call it before `parseArgs`:
 * - `--help` (or `-h`) prints the script's own header comment (what it measures, its usage,
 *   where the figures go) and exits 0;
 * - a flag `parseArgs` refuses (unknown, or missing its value) is one line naming it and
 *   pointing at `--help`, exit 2, instead of a stack trace.
 */
export function benchCli(file: string): void {
  const name = basename(file).replace(/\.ts$/, '');
  if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
    console.log(headerOf(file) || `bench/${name}.ts: no description`);
    process.exit(0);
  }
  process.once('uncaughtException', (error: Error & { code?: string }) => {
    if (error.code?.startsWith('ERR_PARSE_ARGS_')) {
      console.error(`bench/${name}.ts: ${error.message}; run it with --help for its flags`);
      process.exit(2);
    }
    throw error;
  });
}

/** The first block comment of the file, without its stars. */
function headerOf(file: string): string {
  const source = readFileSync(file, 'utf8');
  const match = /\/\*\*([\s\S]*?)\*\//.exec(source);
  if (!match) return '';
  return match[1]!
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
}
