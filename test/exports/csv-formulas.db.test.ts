import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markOverdue } from '../../src/expectations/index.ts';
import {
  neutraliseCsvText,
  runDailyExport,
  writeExport,
  type ExportFormat,
} from '../../src/exports/index.ts';
import { applyTransfer } from '../../src/ledger/index.ts';
import { expectation } from '../expectations/match-fixtures.ts';
import { ENVIRONMENT, insertExpectation } from '../expectations/support/matching-rows.ts';
import { transferFixture } from '../support/resource-fixtures.ts';
import { runCli } from '../support/run-cli.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';

/** CSV formula injection (CWE-1236): a spreadsheet opening the cell would run it. */
const FORMULA = '=HYPERLINK("http://x.invalid","r")';
const NEUTRALISED = `'${FORMULA}`;
/** How the neutralised cell is written: quoted, its quotes doubled. */
const WRITTEN = `"'=HYPERLINK(""http://x.invalid"",""r"")"`;
const DAY = { from: '2026-03-04T00:00:00.000Z', to: '2026-03-05T00:00:00.000Z' };

let database: TestDatabase;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'paysync-csv-formulas-'));

beforeAll(async () => {
  database = await freshDatabase();
  env = {
    PAYSYNC_DATABASE_URL: database.url,
    PAYSYNC_BOOKS_TIMEZONE: 'UTC',
    PAYSYNC_LOG_LEVEL: 'silent',
  };
  // A payout of 500 XOF (and a fee of 100) whose reference is a formula: its books carry -600.
  await applyTransfer(
    database.db,
    transferFixture({
      id: 'tr_formula',
      reference: FORMULA,
      amount: 500,
      status: 'successful',
      createdAt: '2026-03-04T09:00:00.000Z',
      updatedAt: '2026-03-04T09:01:00.000Z',
    }),
    { via: 'webhook', observedAt: '2026-03-04T09:02:00.000Z' },
  );
  // An expectation the merchant named with a formula, never paid: an open `missing` break.
  const { id: _id, ...fields } = expectation({
    expectation_id: FORMULA,
    amount_min: 40_000,
    amount_max: 40_000,
    window_to: '2026-03-04T18:00:00.000Z',
  });
  await insertExpectation(database.db, fields);
  await markOverdue(database.db, '2026-03-04T20:00:00.000Z', {
    environment: ENVIRONMENT,
    allExpected: 'off',
  });
});
afterAll(async () => database?.cleanup());

async function exported(format: ExportFormat): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  await writeExport(
    { db: database.db, format, window: DAY, environment: ENVIRONMENT, timeZone: 'UTC' },
    sink,
  );
  return Buffer.concat(chunks).toString('utf8');
}

/** The transfer's rows of an export CSV: the formulas neutralised, the amounts numbers. */
function expectNeutralisedExport(text: string): void {
  expect(text).toContain(WRITTEN);
  const rows = parse(text, { columns: true }) as Record<string, string>[];
  const transfer = rows.filter((r) => r.resource_id === 'tr_formula');
  expect(transfer.length).toBeGreaterThan(1);
  for (const row of transfer) {
    expect(row.reference).toBe(NEUTRALISED);
    expect(row.description).toContain(FORMULA);
  }
  const negative = transfer.find((r) => r.amount_minor === '-600');
  expect(negative, 'the credit line of -600 XOF').toBeDefined();
  expect(negative!.amount).toBe('-600');
  // Written bare, as a number: not quoted, no leading quote.
  expect(text).toMatch(/,credit,-600,-600,XOF,/);
}

describe('issue 38.3: no CSV paysync writes can run a formula in a spreadsheet', () => {
  it('the export CSV neutralises a formula reference and keeps -600 a number', async () => {
    expectNeutralisedExport(await exported('csv'));
  });

  it('paysync export --format csv, to a file and to stdout', async () => {
    const out = join(dir, 'export.csv');
    const args = ['export', '--from', '2026-03-04', '--to', '2026-03-05', '--format', 'csv'];
    const toFile = await runCli([...args, '--out', out], { env });
    expect(toFile.stderr).not.toMatch(/error/i);
    expect(toFile.code).toBe(0);
    expectNeutralisedExport(readFileSync(out, 'utf8'));
    const toStdout = await runCli(args, { env });
    expect(toStdout.code).toBe(0);
    expectNeutralisedExport(toStdout.stdout);
  });

  it('the daily folder (and so the ops API that serves its files)', async () => {
    await runDailyExport({
      db: database.db,
      environment: ENVIRONMENT,
      timeZone: 'UTC',
      formats: ['csv'],
      dir,
      day: '2026-03-04',
      now: new Date('2026-03-05T02:00:00.000Z'),
    });
    expectNeutralisedExport(
      readFileSync(join(dir, '2026', '03', 'paysync-2026-03-04.csv'), 'utf8'),
    );
  });

  it('paysync expect report --format csv', async () => {
    const result = await runCli(
      ['expect', 'report', '--from', '2026-03-04', '--to', '2026-03-04', '--format', 'csv'],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(WRITTEN);
    const rows = parse(result.stdout, { columns: true }) as Record<string, string>[];
    const missing = rows.find((r) => r.section === 'open_break' && r.name === 'missing');
    expect(missing!.expectation_id).toBe(NEUTRALISED);
    expect(missing!.difference_minor).toBe('-40000');
    expect(result.stdout).toMatch(/,-40000,/);
  });

  it('JSONL, hledger and beancount keep the text as it is, and their checks pass', async () => {
    const jsonl = (await exported('jsonl'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(jsonl.filter((l) => l.resource_id === 'tr_formula').map((l) => l.reference)).toContain(
      FORMULA,
    );
    const journal = join(dir, 'day.journal');
    writeFileSync(journal, await exported('hledger'));
    expect(readFileSync(journal, 'utf8')).toContain('reference:=HYPERLINK(');
    execFileSync('hledger', ['-f', journal, 'check', '--strict']);
    const beancount = join(dir, 'day.beancount');
    writeFileSync(beancount, await exported('beancount'));
    expect(readFileSync(beancount, 'utf8')).toContain('reference: "=HYPERLINK(');
    const check = spawnSync('bean-check', [beancount], { encoding: 'utf8' });
    expect(check.stderr + check.stdout).toBe('');
  });
});

describe('the CSV rule, cell by cell', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+33 6 12', "'+33 6 12"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ["'=1+1", "''=1+1"],
    ['order-42', 'order-42'],
    ["it's", "it's"],
    ['', ''],
  ])('%j is written %j, and reads back by stripping one quote', (original, written) => {
    expect(neutraliseCsvText(original)).toBe(written);
    const readBack = /^'+[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(written)
      ? written.slice(1)
      : written;
    expect(readBack).toBe(original);
  });
});
