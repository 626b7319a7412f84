import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cronTable } from '../../jobs/cron-table.ts';
import { loadConfig } from '../../src/config/index.ts';
import { runDailyExport, type ManifestDay } from '../../src/exports/index.ts';
import { applyPaymentIntent } from '../../src/ledger/index.ts';
import { paymentIntentFixture } from '../support/resource-fixtures.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { bookWeek } from './support/week-of-books.ts';

let database: TestDatabase;
const dir = mkdtempSync(join(tmpdir(), 'paysync-daily-'));
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  database = await freshDatabase();
  await bookWeek(database);
  await database.db
    .insertInto('daily_verdicts')
    .values({
      environment: 'sandbox',
      day: '2026-11-20',
      time_zone: 'UTC',
      verdict: 'RECONCILED',
      report: '{}',
      computed_at: '2026-11-21T01:00:00.000Z',
    })
    .execute();
});
afterAll(async () => database.cleanup());

describe('11 acceptance 6: the scheduled daily export', () => {
  it('is scheduled daily at 02:00 in the books zone unless PAYSYNC_EXPORT_CRON=off', () => {
    const entry = cronTable(loadConfig({ PAYSYNC_BOOKS_TIMEZONE: 'Africa/Abidjan' })).find(
      (e) => e.task === 'export',
    );
    expect(entry).toMatchObject({ cron: '0 2 * * *', timeZone: 'Africa/Abidjan' });
    // Listed with `off` (doctor and runs know the task); the scheduler never fires it.
    expect(
      cronTable(loadConfig({ PAYSYNC_EXPORT_CRON: 'off' })).find((e) => e.task === 'export')?.cron,
    ).toBe('off');
  });

  it('writes each format and a manifest whose sha256 values match the files; a rerun rewrites only changed files', async () => {
    const request = {
      db: database.db,
      environment: 'sandbox',
      timeZone: 'UTC',
      formats: ['csv', 'hledger', 'beancount'] as const,
      dir,
      day: '2026-11-20',
      now: new Date(),
    };
    const first = await runDailyExport({ ...request, formats: [...request.formats] });
    const folder = join(dir, '2026', '11');
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as {
      days: Record<string, ManifestDay>;
    };
    const day = manifest.days['2026-11-20']!;
    expect(day.verdict).toBe('RECONCILED');
    expect(day.window).toEqual({
      from: '2026-11-20T00:00:00.000Z',
      to: '2026-11-21T00:00:00.000Z',
    });
    expect(day.files.map((f) => f.file)).toEqual([
      'paysync-2026-11-20.csv',
      'paysync-2026-11-20.journal',
      'paysync-2026-11-20.beancount',
    ]);
    for (const f of day.files) expect(sha(join(folder, f.file))).toBe(f.sha256);
    expect(day.files[0]!.rows).toBeGreaterThan(10);
    expect(day.files[0]!.sums.map((s) => s.currency)).toEqual(['EUR', 'TND', 'XOF']);
    for (const s of day.files[0]!.sums) expect(s.debits).toBe(s.credits);
    expect(first.files.every((f) => f.rewritten)).toBe(true);

    const mtime = statSync(join(folder, 'paysync-2026-11-20.csv')).mtimeMs;
    const again = await runDailyExport({ ...request, formats: [...request.formats] });
    expect(again.files.every((f) => !f.rewritten)).toBe(true);
    expect(statSync(join(folder, 'paysync-2026-11-20.csv')).mtimeMs).toBe(mtime);

    await applyPaymentIntent(
      database.db,
      paymentIntentFixture({
        id: 'pi_late',
        status: 'successful',
        amount: 999,
        createdAt: '2026-11-20T20:00:00.000Z',
        updatedAt: '2026-11-20T20:01:00.000Z',
      }),
      { via: 'poll', observedAt: '2026-11-21T03:00:00.000Z' },
    );
    const changed = await runDailyExport({ ...request, formats: [...request.formats] });
    expect(changed.files.every((f) => f.rewritten)).toBe(true);
    const rewritten = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as {
      days: Record<string, ManifestDay>;
    };
    for (const f of rewritten.days['2026-11-20']!.files)
      expect(sha(join(folder, f.file))).toBe(f.sha256);
  });
});
