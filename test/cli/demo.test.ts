import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createDatabase } from '../../src/db/index.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { closedPort, runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { TEST_REDIS_URL } from '../support/test-redis.ts';

const dir = mkdtempSync(join(tmpdir(), 'paysync-demo-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The last refreshed block: everything after the last "paysync demo · " header. */
function lastSummary(stdout: string): string {
  return stdout.slice(stdout.lastIndexOf('paysync demo · '));
}

function totalOf(summary: string, label: string): number {
  const match = new RegExp(`^${label}\\s+(\\d+)`, 'm').exec(summary);
  return Number(match?.[1] ?? 0);
}

describe('paysync demo (child process)', () => {
  it('--duration 8 runs on SQLite and Redis only, shows counts and balanced books, and exits 0', async () => {
    const result = await runCli(['demo', '--duration', '8', '--interval', '2'], {
      cwd: dir,
      env: { PAYSYNC_REDIS_URL: TEST_REDIS_URL },
      timeoutMs: 90_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Refreshed more than once (a new block each time: stdout is not a terminal here).
    expect(result.stdout.split('paysync demo · ').length).toBeGreaterThan(3);

    const summary = lastSummary(result.stdout);
    expect(summary).toContain('stopped (8 s elapsed)');
    expect(totalOf(summary, 'payment intents')).toBeGreaterThan(0);
    expect(totalOf(summary, 'transfers')).toBeGreaterThan(0);
    expect(summary).toMatch(/^transfers\s+\d+\s+.*failed [1-9]/m);
    // The simulator's funding was booked as opening balances before the traffic: the transfer
    // account holds it, less what was paid out.
    expect(summary).toMatch(/^service:transfer\s+XOF\s+[1-9]\d*\s/m);
    expect(summary).toMatch(
      /^Books balance: yes, each currency sums to zero over [1-9]\d* journals/m,
    );
    expect(summary).toContain('Discrepancies open: 0');
    expect(summary).toMatch(/^Today's verdict \(\d{4}-\d{2}-\d{2}, UTC\): [A-Z_]+$/m);
    expect(result.stdout).toMatch(/dashboard http:\/\/127\.0\.0\.1:\d+\/ · token \S{32}/);
    const webhooks =
      /Webhooks: (\d+) delivered by the service · (\d+) received · (\d+) processed/.exec(summary);
    expect(Number(webhooks?.[1])).toBeGreaterThan(0);
    expect(Number(webhooks?.[2])).toBeGreaterThan(0);
    expect(Number(webhooks?.[3])).toBeGreaterThan(0);

    // The closing hint names a failed transfer that `show` then explains from the demo's books.
    const hint = /Try next: PAYSYNC_DATABASE_URL=(\S+) npx paysync show (tr_\w+)/.exec(
      result.stdout,
    );
    expect(hint).not.toBeNull();
    // In this process (issue 39): the demo itself was the real one.
    const shown = await runCliInProcess(['show', hint![2]!], {
      cwd: dir,
      env: { PAYSYNC_DATABASE_URL: hint![1]! },
    });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(': failed');
    expect(shown.stdout).toContain('No money moved');

    // The open alerts it showed are the demo's books' own.
    const books = createDatabase(hint![1]!);
    try {
      const open = await books.db
        .selectFrom('alerts')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('status', '!=', 'resolved')
        .executeTakeFirstOrThrow();
      expect(summary).toMatch(new RegExp(`^Alerts open: ${Number(open.count)}\\b`, 'm'));
    } finally {
      await books.close();
    }

    // It cleaned its queues out of Redis.
    const prefix = /queues (paysync-demo-\w+):\*/.exec(result.stdout)?.[1];
    expect(prefix).toBeDefined();
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const [, keys] = await redis.scan('0', 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      expect(keys).toEqual([]);
    } finally {
      await redis.quit();
    }
  }, 120_000);

  it('without Redis, and no redis-server on the PATH, it stops in one line saying so, exit 1', async () => {
    const port = await closedPort();
    const emptyPath = mkdtempSync(join(tmpdir(), 'paysync-no-redis-'));
    const result = await runCli(['demo', '--duration', '2'], {
      cwd: dir,
      env: { PAYSYNC_REDIS_URL: `redis://127.0.0.1:${port}`, PATH: emptyPath },
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`cannot reach Redis at redis://127.0.0.1:${port}`);
    rmSync(emptyPath, { recursive: true, force: true });
  });

  it('a bad --duration exits 2 naming the flag', async () => {
    const result = await runCliInProcess(['demo', '--duration', 'soon'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--duration must be a whole number');
  });
});
