import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * One clock (issue 20.1; STYLE 12): the ESLint rule `paysync/one-clock` holds in every file but
 * the composition roots, with no list of files left to convert.
 */
const root = join(import.meta.dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

async function clockProblems(code: string, file: string): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'paysync/one-clock').length;
}

const defaults = [
  'export const a = () => new Date();',
  'export const b = (at = Date.now()) => at;',
  'export const c = (at?: number) => at ?? Date.now();',
  "import { systemClock } from '../lifecycle/index.ts';\nexport const d = systemClock;",
];

describe('the one-clock rule', () => {
  it.each([
    'src/inbox/inbox.repository.ts',
    'src/upstream/paging.ts',
    'src/receiver/hmac.scheme.ts',
    'src/ops/today.page.ts',
    'src/reports/daily-report.ts',
    'jobs/sweep.job.ts',
  ])('refuses a clock of its own in %s (formerly excused files included)', async (file) => {
    for (const code of defaults) expect(await clockProblems(code, file), code).toBe(1);
  });

  it.each(['src/daemon/create-daemon.ts', 'src/cli/context.ts', 'src/demo/start-demo.ts'])(
    'lets the composition root %s read the machine clock',
    async (file) => {
      for (const code of defaults) expect(await clockProblems(code, file), code).toBe(0);
    },
  );

  it('allows parsing a time and measuring elapsed time', async () => {
    const code = [
      "export const parsed = new Date('2030-01-02T03:04:05.678Z');",
      'const started = Date.now();',
      'export const elapsedMs = () => Date.now() - started;',
    ].join('\n');
    expect(await clockProblems(code, 'src/inbox/inbox.repository.ts')).toBe(0);
  });
});
