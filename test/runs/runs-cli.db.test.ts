import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordScheduledRun } from '../../src/runs/index.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

/** `paysync runs`: what an operator reads after a night of scheduled runs. */
// The first command runs as a real process, to prove the boundary; the other checks of output
// and exit codes run the same program in this process (runCliInProcess, issue 39).
describe(`paysync runs on ${testDialect()}`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
    const logger = pino({ level: 'silent' });
    const at = (iso: string) => ({ db: database.db, logger, now: () => new Date(iso) });
    await recordScheduledRun(
      at('2030-01-10T10:00:00.000Z'),
      { task: 'sweep', slot: '2030-01-10T10:00:00.000Z' },
      async (run) => {
        run.count({
          itemsSeen: 37,
          itemsChanged: 4,
          itemsMissed: 1,
          pagesRead: 2,
          upstreamCalls: 2,
        });
        run.checkpoint('intents 2030-01-10T10:00:00.001Z');
      },
    );
    await recordScheduledRun(
      at('2030-01-10T10:05:00.000Z'),
      { task: 'sweep', slot: '2030-01-10T10:05:00.000Z' },
      async (run) => run.cutShort('transfers: listTransfers: throttled by the service (429)'),
    );
    await recordScheduledRun(
      at('2030-01-10T10:05:00.000Z'),
      { task: 'recover-inbox', slot: '2030-01-10T10:05:00.000Z' },
      async () => undefined,
    );
  });
  afterAll(async () => {
    await database.cleanup();
  });

  it('lists runs newest first with outcome, counts and checkpoint or error', async () => {
    const result = await runCli(['runs', '--task', 'sweep'], {
      env: { PAYSYNC_DATABASE_URL: database.url },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^STARTED\s+TASK\s+OUTCOME\s+DURATION\s+SEEN\s+CHANGED\s+MISSED\s+PAGES\s+CALLS\s+CHECKPOINT \/ ERROR$/,
    );
    expect(lines[1]).toMatch(
      /^2030-01-10T10:05:00\.000Z\s+sweep\s+partial\s.*throttled by the service \(429\)$/,
    );
    expect(lines[2]).toMatch(
      /^2030-01-10T10:00:00\.000Z\s+sweep\s+succeeded\s+0 ms\s+37\s+4\s+1\s+2\s+2\s+intents 2030-01-10T10:00:00\.001Z$/,
    );
    expect(result.stdout).toContain(
      '2 runs, newest first; 1 partial or failed; 1 item found only by sweeps',
    );
    expect(result.stdout).not.toContain('recover-inbox');
  });

  it('--json prints the runs as an array; a bad --limit exits 2 naming the flag', async () => {
    const json = await runCliInProcess(['runs', '--json', '--limit', '2'], {
      env: { PAYSYNC_DATABASE_URL: database.url },
    });
    expect(json.code).toBe(0);
    const runs = JSON.parse(json.stdout) as { task: string; outcome: string }[];
    expect(runs).toHaveLength(2);
    expect(runs.map((r) => r.outcome).sort()).toEqual(['partial', 'succeeded']);
    const bad = await runCliInProcess(['runs', '--limit', '0'], {
      env: { PAYSYNC_DATABASE_URL: database.url },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--limit must be a whole number from 1 to 10000');
  });
});
