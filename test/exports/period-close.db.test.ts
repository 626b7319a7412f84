import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPaymentIntent, applyTransfer, journalsFor } from '../../src/ledger/index.ts';
import type { Verdict } from '../../src/reports/index.ts';
import { paymentIntentFixture, transferFixture } from '../support/resource-fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { bookWeek } from './support/week-of-books.ts';

let database: TestDatabase;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'paysync-close-'));

/** The day verdicts `paysync report` would have stored for November. */
async function storeNovemberVerdicts(breaksOn?: string): Promise<void> {
  await database.db.deleteFrom('daily_verdicts').execute();
  for (let d = 1; d <= 30; d += 1) {
    const day = `2026-11-${String(d).padStart(2, '0')}`;
    const verdict: Verdict = day === breaksOn ? 'BREAKS' : 'RECONCILED';
    await database.db
      .insertInto('daily_verdicts')
      .values({
        environment: 'sandbox',
        day,
        time_zone: 'UTC',
        verdict,
        report: '{}',
        computed_at: '2026-12-01T01:00:00.000Z',
      })
      .execute();
  }
}

beforeAll(async () => {
  database = await freshDatabase();
  await bookWeek(database);
  env = {
    PAYSYNC_DATABASE_URL: database.url,
    PAYSYNC_LOG_LEVEL: 'silent',
    PAYSYNC_EXPORT_DIR: join(dir, 'exports'),
    PAYSYNC_EXPORT_FORMATS: 'csv,hledger',
  };
});
afterAll(async () => database.cleanup());

describe('11 acceptance 5: period close', () => {
  it('refuses while a day is BREAKS, unless --force --reason; a closed month stays byte-identical and a late reversal lands in the next month', async () => {
    await storeNovemberVerdicts('2026-11-18');
    // Real processes for a refusal (exit 1), November's export (stdout byte for byte) and
    // reopen's refusal (exit 2); the other commands run in this process (issue 39).
    const refused = await runCli(['close', '--period', '2026-11'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/2026-11-18 BREAKS/);
    const forceWithoutReason = await runCliInProcess(['close', '--period', '2026-11', '--force'], {
      env,
    });
    expect(forceWithoutReason.code).toBe(2);
    expect(forceWithoutReason.stderr).toMatch(/--reason/);
    expect(await database.db.selectFrom('closed_periods').selectAll().execute()).toEqual([]);

    const closed = await runCliInProcess(
      [
        'close',
        '--period',
        '2026-11',
        '--force',
        '--reason',
        'break on the 18th explained by the bank',
      ],
      { env },
    );
    expect(closed.stderr).toBe('');
    expect(closed.code).toBe(0);
    const row = await database.db
      .selectFrom('closed_periods')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(row.forced).toBe(1);
    const frozen = JSON.parse(row.exports) as { format: string; file: string; sha256: string }[];
    expect(frozen.map((f) => f.format)).toEqual(['csv', 'hledger']);
    expect(frozen[0]!.file).toMatch(/2026\/11\/paysync-2026-11\.csv$/);

    const november = ['export', '--from', '2026-11-01', '--to', '2026-12-01'];
    const before = await runCli(november, { env });
    expect(before.code).toBe(0);
    expect(before.stdout).toBe(readFileSync(frozen[0]!.file, 'utf8'));

    // New activity: tr_2_0 (successful on the 18th) fails on the 29th, learned on 2 December;
    // and a new payment in December.
    const original = (await journalsFor(database.db, 'transfer', 'tr_2_0'))[0]!;
    await applyTransfer(
      database.db,
      transferFixture({
        id: 'tr_2_0',
        reference: 'payout-2-0',
        amount: 252_000,
        currency: 'XOF',
        createdAt: '2026-11-18T09:02:00.000Z',
        status: 'failed',
        updatedAt: '2026-11-29T10:00:00.000Z',
        fees: [{ id: 'fee_2_0', rate: 1, amount: 100, currency: 'XOF', taxes: [], label: 'fee' }],
      }),
      { via: 'poll', observedAt: '2026-12-02T08:00:00.000Z' },
    );
    await applyPaymentIntent(
      database.db,
      paymentIntentFixture({
        id: 'pi_dec',
        status: 'successful',
        amount: 7000,
        createdAt: '2026-12-02T09:00:00.000Z',
        updatedAt: '2026-12-02T09:01:00.000Z',
      }),
      { via: 'webhook', observedAt: '2026-12-02T09:02:00.000Z' },
    );

    const after = await runCliInProcess(november, { env });
    expect(after.code).toBe(0);
    expect(after.stdout).toBe(before.stdout);
    const hledgerNovember = await runCliInProcess([...november, '--format', 'hledger'], { env });
    expect(hledgerNovember.stdout).toBe(readFileSync(frozen[1]!.file, 'utf8'));

    const december = await runCliInProcess(
      ['export', '--from', '2026-12-01', '--to', '2027-01-01'],
      { env },
    );
    const rows = parse(december.stdout, { columns: true }) as Record<string, string>[];
    const late = rows.filter((r) => r.late_change_period === '2026-11');
    expect(late.length).toBeGreaterThan(1);
    // The late reversal is presented as an adjustment of the original journal, in December.
    expect(
      late.every(
        (r) =>
          r.entry_type === 'adjustment' &&
          r.adjusts_journal_id === String(original.id) &&
          r.reverses_journal_id === String(original.id) &&
          r.settlement_key === 'reversal-1',
      ),
    ).toBe(true);
    expect(rows.filter((r) => r.entry_type === 'adjustment')).toEqual(late);
    expect(late[0]!.original_effective_at).toBe('2026-11-29T10:00:00.000Z');
    expect(late[0]!.effective_at).toBe('2026-12-01T00:00:00.000Z');
    expect(rows.some((r) => r.resource_id === 'pi_dec' && r.late_change_period === '')).toBe(true);

    const journal = join(dir, 'december.journal');
    const text = (
      await runCliInProcess(
        ['export', '--from', '2026-12-01', '--to', '2027-01-01', '--format', 'hledger'],
        { env },
      )
    ).stdout;
    writeFileSync(journal, text);
    expect(text).toContain('; late changes to closed periods');
    expect(text).toMatch(
      new RegExp(`;   journal \\d+: adjustment of journal ${original.id} \\(late reversal\\)`),
    );
    expect(text).toContain(`entry:adjustment`);
    expect(text).toContain(`adjusts:${original.id}`);
    execFileSync('hledger', ['-f', journal, 'check', '--strict']);

    const jsonl = await runCliInProcess(
      ['export', '--from', '2026-12-01', '--to', '2027-01-01', '--format', 'jsonl'],
      { env },
    );
    const objects = jsonl.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((o) => o.late_change_period === '2026-11');
    expect(objects.length).toBe(late.length);
    expect(
      objects.every((o) => o.entry_type === 'adjustment' && o.adjusts_journal_id === original.id),
    ).toBe(true);

    const beanFile = join(dir, 'december.beancount');
    const bean = (
      await runCliInProcess(
        ['export', '--from', '2026-12-01', '--to', '2027-01-01', '--format', 'beancount'],
        { env },
      )
    ).stdout;
    writeFileSync(beanFile, bean);
    expect(bean).toContain('; late changes to closed periods');
    expect(bean).toContain('  entry: "adjustment"');
    expect(bean).toContain(`  adjusts: "${original.id}"`);
    execFileSync('bean-check', [beanFile]);
    // Two CLI processes and nine runs in this process: a loaded machine may still take more
    // than the default 30 s.
  }, 120_000);

  it('reopen is refused without a reason, and logged with one', async () => {
    const missing = await runCli(['reopen', '--period', '2026-11'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--reason/);
    const blank = await runCliInProcess(['reopen', '--period', '2026-11', '--reason', '  '], {
      env,
    });
    expect(blank.code).toBe(2);
    const reopened = await runCliInProcess(
      ['reopen', '--period', '2026-11', '--reason', 'late bank statement'],
      { env },
    );
    expect(reopened.code).toBe(0);
    expect(await database.db.selectFrom('closed_periods').selectAll().execute()).toEqual([]);
    const events = await database.db
      .selectFrom('period_events')
      .select(['action', 'reason'])
      .orderBy('id')
      .execute();
    expect(events).toEqual([
      { action: 'close', reason: 'break on the 18th explained by the bank' },
      { action: 'reopen', reason: 'late bank statement' },
    ]);
  });
});
