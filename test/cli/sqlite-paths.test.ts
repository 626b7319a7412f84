import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

const folder = mkdtempSync(join(tmpdir(), 'paysync-folder-as-db-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** SQLite paths that cannot be a database, each with what the message must name. */
const BAD_PATHS = {
  'a folder that mkdir cannot create (/proc)': '/proc/self/nope/x.db',
  'a folder': folder,
  'a file that is not a database': '/proc/version',
  'a file where a folder should be': '/proc/version/x.db',
} as const;

const COMMANDS: Record<string, readonly string[]> = {
  migrate: ['migrate'],
  list: ['list', 'transfers'],
  show: ['show', 'tr_8Kq2Xw7LmN3pR5tV9yB1cD4f'],
  replay: ['replay', '--since', '1h', '--dry-run'],
  prune: ['prune', '--dry-run'],
  serve: ['serve'],
};

const CASES = Object.entries(BAD_PATHS).flatMap(([what, path]) =>
  Object.entries(COMMANDS).map(([name, args]) => [name, what, path, args] as const),
);

/**
 * Each command on the first path runs as a real process, and `serve` always does (it would
 * start servers); the other cases run the same program in this process (issue 39), where a
 * hang fails the test by its timeout instead of runCli's kill.
 */
const FIRST_PATH: string = BAD_PATHS['a folder that mkdir cannot create (/proc)'];
const spawned = (name: string, path: string) => name === 'serve' || path === FIRST_PATH;

describe('7.D11, 7.D12: every command names PAYSYNC_DATABASE_URL and the path of an unusable SQLite file', () => {
  it.each(CASES)(
    '`paysync %s` on %s (%s) exits 1 at once with one line',
    async (name, _what, path, args) => {
      const env = { PAYSYNC_DATABASE_URL: `sqlite:${path}`, PAYSYNC_WEBHOOK_SCHEME: 'none' };
      const result = spawned(name, path)
        ? await runCli(args, { env, timeoutMs: 60_000 })
        : await runCliInProcess(args, { env });
      // The old code hung for ever in a recursive mkdir under /proc: runCli then kills it, and
      // the one line below is never printed.
      expect(result.signal).toBeNull();
      expect(result.code).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^paysync ${name}: `));
      expect(lines[0]).toContain('PAYSYNC_DATABASE_URL');
      expect(lines[0]).toContain(`sqlite:${path}`);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    },
    90_000,
  );
});

describe('7.D12: doctor reports an unusable SQLite file as a failed check', () => {
  it.each(Object.entries(BAD_PATHS))(
    '`paysync doctor` on %s (%s) names PAYSYNC_DATABASE_URL and the path',
    async (_what, path) => {
      const env = { PAYSYNC_DATABASE_URL: `sqlite:${path}` };
      const result = spawned('doctor', path)
        ? await runCli(['doctor'], { env, timeoutMs: 15_000 })
        : await runCliInProcess(['doctor'], { env });
      expect(result.code).toBe(1);
      const line = result.stdout.split('\n').find((l) => l.includes('database'));
      expect(line).toBeDefined();
      expect(line).toContain('PAYSYNC_DATABASE_URL');
      expect(line).toContain(path);
      expect(result.stderr).toBe('');
    },
    20_000,
  );
});
