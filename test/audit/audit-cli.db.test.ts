import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

// The first `audit` runs as a real process, to prove the boundary; the other checks of output
// and exit codes run the same program in this process (issue 39).
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { cleanTruth, writeCleanBooks } from './support/audit-books.ts';

let database: TestDatabase;
let sim: RunningSimulator;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  database = await freshDatabase();
  await writeCleanBooks(database.db);
  sim = await startSimulator({ freezeClock: true });
  dir = mkdtempSync(join(tmpdir(), 'paysync-audit-'));
  env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_LOG_LEVEL: 'silent' };
});
afterAll(async () => {
  await sim?.stop();
  await database?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('paysync audit', () => {
  it('exits 0 on clean books and says what it checked', async () => {
    const result = await runCli(['audit'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/audit clean: 7 journals, \d+ lines, 7 items/);
    expect(result.stdout).toContain('not checked: ground truth: none given');
  });

  it('compares with a truth file; a difference exits 1 with the ids, also as JSON', async () => {
    const good = join(dir, 'truth.json');
    writeFileSync(good, JSON.stringify(cleanTruth()));
    const clean = await runCliInProcess(['audit', '--truth', good], { env });
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('7 truth items, 7 movements');

    const truth = cleanTruth();
    truth.items.find((i) => i.id === 'tr_1')!.status = 'failed';
    const bad = join(dir, 'different.json');
    writeFileSync(bad, JSON.stringify(truth));
    const result = await runCliInProcess(['audit', '--truth', bad], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '✖ status_mismatch: transfer tr_1: mirror says successful, the service failed',
    );
    const json = await runCliInProcess(['audit', '--json', '--truth', bad], { env });
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { clean: boolean; violations: { ids: object }[] };
    expect(report.clean).toBe(false);
    expect(report.violations.map((v) => v.ids)).toEqual([
      { resourceKind: 'transfer', resourceId: 'tr_1' },
    ]);
  });

  it("reads the truth from the simulator's URL: its items are unknown to these books", async () => {
    const result = await runCliInProcess(['audit', '--truth', `${sim.url}/__sim/ground-truth`], {
      env,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✖ item_unknown: payment_intent pi_1 is in the mirror');
  });

  it('exits 2 with one line for a truth it cannot read', async () => {
    const missing = await runCliInProcess(['audit', '--truth', join(dir, 'nope.json')], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^paysync audit: --truth .*nope\.json: cannot read the file/);
    const notTruth = join(dir, 'other.json');
    writeFileSync(notTruth, JSON.stringify({ items: [] }));
    const wrong = await runCliInProcess(['audit', '--truth', notTruth], { env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('is not a simulator ground truth: movements');
    expect(wrong.stdout).toBe('');
  });

  it('--since last-clean checks what changed since the last clean audit, and says so', async () => {
    const full = await runCliInProcess(['audit', '--json'], { env });
    expect(full.code).toBe(0);
    const recorded = (JSON.parse(full.stdout) as { recordedRun: number }).recordedRun;
    expect(recorded).toEqual(expect.any(Number));
    const result = await runCliInProcess(['audit', '--since', 'last-clean'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`incremental audit of changes since`);
    expect(result.stdout).toContain(`(clean audit ${recorded} of `);
    expect(result.stdout).toMatch(/audit clean: 0 journals, 0 lines, 0 items/);
    expect(result.stdout).toContain(`recorded as clean audit ${recorded + 1}`);
    const json = await runCliInProcess(['audit', '--since', 'last-clean', '--json'], { env });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      mode: string;
      range: string;
      scope: { basedOnRun: { id: number } };
    };
    expect(report.mode).toBe('incremental');
    expect(report.scope.basedOnRun.id).toBe(recorded + 1);
    expect(report.range).toMatch(/^changes since \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z /);
  });

  it.each([
    ['yesterday', '--since "yesterday" is not a time: use a UTC ISO 8601 time'],
    ['2031-13-01', 'there is no month 13'],
    ['2999-01-01', '--since "2999-01-01" is in the future'],
  ])('exits 2 with one line naming --since for %s', async (value, message) => {
    const result = await runCliInProcess(['audit', '--since', value], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(message);
  });

  it('refuses --since with --truth in one line, exit 2', async () => {
    const result = await runCliInProcess(['audit', '--since', 'last-clean', '--truth', 'x.json'], {
      env,
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(
      'paysync audit: --truth compares every item and balance, so it needs the full audit: drop --since or --truth',
    );
  });

  it('--help explains both modes', async () => {
    const result = await runCliInProcess(['audit', '--help'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--since <last-clean|time>');
    expect(result.stdout).toContain('With no clean audit on record it runs the full audit');
    expect(result.stdout).toContain('paysync audit --since last-clean');
  });
});
