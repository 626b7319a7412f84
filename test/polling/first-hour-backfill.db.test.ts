import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/sim/index.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { closeCliBooks, openCliBooks } from '../support/cli-books.ts';
import { testDialect, type TestDatabase } from '../support/test-database.ts';

/** Issue 40.10: a backfill to a midnight prints no empty window of one instant. */
let database: TestDatabase;
let sim: RunningSimulator;
let env: Record<string, string>;

beforeAll(async () => {
  ({ database, sim, env } = await openCliBooks(
    { freezeClock: true, startAt: new Date('2026-11-25T12:00:00.000Z') },
    {
      PAYSYNC_QUEUE_PREFIX: `paysync-test:first-hour:${Math.random().toString(16).slice(2)}`,
      PAYSYNC_UPSTREAM_RPS: '500',
      PAYSYNC_LOG_LEVEL: 'warn',
    },
  ));
});
afterAll(async () => closeCliBooks({ database, sim }));

describe(`paysync backfill windows on ${testDialect()}`, () => {
  it('--from one midnight --to another: one window per day, the last ending on --to', async () => {
    const result = await runCliInProcess(
      [
        'backfill',
        '--from',
        '2026-11-20T00:00:00Z',
        '--to',
        '2026-11-22T00:00:00Z',
        '--kind',
        'transfers',
      ],
      { env },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const windows = result.stdout.match(/^backfill: window .*$/gm) ?? [];
    expect(windows).toEqual([
      expect.stringMatching(
        /^backfill: window 1\/2 transfers 2026-11-20T00:00:00\.000Z → 2026-11-20T23:59:59\.999Z: 0 items/,
      ),
      expect.stringMatching(
        /^backfill: window 2\/2 transfers 2026-11-21T00:00:00\.000Z → 2026-11-22T00:00:00\.000Z: 0 items/,
      ),
    ]);
    // Never a window from an instant to the same instant.
    expect(result.stdout).not.toMatch(/(\S+Z) → \1:/);
  });
});
