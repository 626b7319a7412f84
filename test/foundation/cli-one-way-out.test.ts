import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * One way out to the terminal (issue 38.9): the ESLint rule `cli-output/one-way-out` refuses a
 * console call or a write to process.stdout/stderr anywhere in src/cli but src/cli/output.ts,
 * which strips control characters from human output.
 */
const root = join(import.meta.dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

async function rawOutputs(code: string, file: string): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'cli-output/one-way-out').length;
}

const raw = [
  "console.log('x');",
  "console.error('x');",
  "console.info('x');",
  "process.stdout.write('x');",
  "process.stderr.write('x');",
];

describe('the cli-output/one-way-out rule', () => {
  it.each([
    'src/cli/commands/show.command.ts',
    'src/cli/run-paysync.ts',
    'src/cli/format/render-table.ts',
  ])('refuses raw output in %s', async (file) => {
    for (const code of raw) expect(await rawOutputs(code, file), code).toBe(1);
  });

  it('lets src/cli/output.ts write, and other code pass the streams along', async () => {
    for (const code of raw) expect(await rawOutputs(code, 'src/cli/output.ts'), code).toBe(0);
    const passing =
      'export const stream = process.stderr;\nexport const tty = process.stdout.isTTY;';
    expect(await rawOutputs(passing, 'src/cli/commands/export.command.ts')).toBe(0);
  });
});
