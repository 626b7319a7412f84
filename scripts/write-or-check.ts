import { readFileSync, writeFileSync } from 'node:fs';

/**
 * The tail of every generator of a checked-in file: with `--check` on the command line, exit 1
 * when `output` differs from `generated` (a missing file is stale too); otherwise write it.
 * `shown` names the file in messages, `regenerate` is the command that refreshes it.
 */
export function writeOrCheck(
  output: string,
  generated: string,
  shown: string,
  regenerate: string,
): void {
  if (!process.argv.includes('--check')) {
    writeFileSync(output, generated);
    console.log(`wrote ${output}`);
    return;
  }
  let current = '';
  try {
    current = readFileSync(output, 'utf8');
  } catch {
    // A missing file is stale too.
  }
  if (current !== generated) {
    console.error(`${shown} is stale: run \`${regenerate}\` and commit the result`);
    process.exit(1);
  }
  console.log(`${shown} is up to date`);
}
