import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  markOverdue,
  matchSettledItems,
  type MatchingSettings,
} from '../../src/expectations/index.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import { expectation, item } from './match-fixtures.ts';
import { ENVIRONMENT, insertExpectation, settle } from './support/matching-rows.ts';

let database: TestDatabase;
let env: Record<string, string>;
const settings: MatchingSettings = { environment: ENVIRONMENT, allExpected: 'off' };
const DUE = '2026-03-04T18:00:00.000Z';
const PAID = '2026-03-03T10:00:00.000Z';

async function expected(overrides: Parameters<typeof expectation>[0]): Promise<void> {
  const { id: _id, ...fields } = expectation({ window_to: DUE, ...overrides });
  await insertExpectation(database.db, fields);
}

beforeAll(async () => {
  database = await freshDatabase();
  env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_BOOKS_TIMEZONE: 'UTC' };
  // Due on 2026-03-04: one paid in full, one paid 1,000 XOF short, one never paid.
  await expected({ expectation_id: 'pay-1', reference: 'pay-1' });
  await expected({
    expectation_id: 'pay-2',
    reference: 'pay-2',
    amount_min: 30_000,
    amount_max: 30_000,
  });
  await expected({
    expectation_id: 'pay-3',
    reference: 'pay-3',
    amount_min: 40_000,
    amount_max: 40_000,
  });
  // Due on 2026-03-05, in euros.
  await expected({
    expectation_id: 'inv-9',
    direction: 'in',
    currency: 'EUR',
    amount_min: 1_000,
    amount_max: 1_200,
    window_to: '2026-03-05T12:00:00.000Z',
  });
  const items = [
    item({ id: 'tr_1', reference: 'pay-1', amount: 25_000, settledAt: PAID }),
    item({ id: 'tr_2', reference: 'pay-2', amount: 29_000, settledAt: PAID }),
  ];
  await database.db.transaction().execute(async (trx) => {
    for (const settled of items) await settle(trx, settled);
    await matchSettledItems(trx, items, '2026-03-04T10:00:00.000Z', settings);
  });
  await markOverdue(database.db, '2026-03-04T20:00:00.000Z', settings);
});
afterAll(async () => {
  await database?.cleanup();
});

/** `paysync expect report` in this process (issue 39); the first report below is a real one. */
const report = (args: string[]) => runCliInProcess(['expect', 'report', ...args], { env });

describe('paysync expect report', () => {
  it('--json: the day by state, expected against matched money, breaks by kind and the open ones', async () => {
    const result = await runCli(
      ['expect', 'report', '--from', '2026-03-04', '--to', '2026-03-04', '--json'],
      { env },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const day = JSON.parse(result.stdout);
    expect(day).toMatchObject({
      firstDay: '2026-03-04',
      lastDay: '2026-03-04',
      from: '2026-03-04T00:00:00.000Z',
      to: '2026-03-05T00:00:00.000Z',
    });
    const states = Object.fromEntries(
      (day.states as { state: string; count: number }[]).map((s) => [s.state, s.count]),
    );
    expect(states).toMatchObject({ matched: 1, overdue: 1, open: 0, cancelled: 0 });
    expect(Object.values(states).reduce((a, b) => a + b, 0)).toBe(3);
    expect(day.money).toEqual([
      {
        currency: 'XOF',
        count: 3,
        expectedMin: 95_000,
        expectedMax: 95_000,
        matched: 25_000 + 29_000,
      },
    ]);
    expect(day.breaks).toEqual([
      { kind: 'amount_mismatch', open: 1, resolved: 0 },
      { kind: 'missing', open: 1, resolved: 0 },
    ]);
    expect(
      (day.openBreaks as { kind: string; expectation_id: string }[]).map(
        (b) => `${b.kind} ${b.expectation_id}`,
      ),
    ).toEqual(['amount_mismatch pay-2', 'missing pay-3']);
  });

  it('as a table: money with its currency, and each open break with its explanation and action', async () => {
    const result = await report(['--from', '2026-03-04', '--to', '2026-03-05']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Expectations due 2026-03-04 – 2026-03-05 (UTC, sandbox): window ending in (2026-03-04T00:00:00.000Z, 2026-03-06T00:00:00.000Z]',
    );
    expect(result.stdout).toMatch(/^EUR\s+1\s+10\.00 EUR – 12\.00 EUR\s+0\.00 EUR$/m);
    expect(result.stdout).toMatch(/^XOF\s+3\s+95,000 XOF\s+54,000 XOF$/m);
    expect(result.stdout).toMatch(/^missing\s+1\s+0$/m);
    expect(result.stdout).toMatch(/✖ \d+ missing pay-3: .+\n {4}→ .+/);
  });

  it('--by-day --format csv: one block of rows per day, minor units, parsed back by a CSV reader', async () => {
    const result = await report([
      '--from',
      '2026-03-04',
      '--to',
      '2026-03-05',
      '--by-day',
      '--format',
      'csv',
    ]);
    expect(result.code).toBe(0);
    const rows = parse(result.stdout, { columns: true }) as Record<string, string>[];
    const money = rows.filter((r) => r.section === 'money');
    expect(
      money.map((r) => [r.first_day, r.currency, r.expected_min_minor, r.matched_minor]),
    ).toEqual([
      ['2026-03-04', 'XOF', '95000', '54000'],
      ['2026-03-05', 'EUR', '1000', '0'],
    ]);
    const open = rows.filter((r) => r.section === 'open_break');
    expect(open.map((r) => [r.first_day, r.name, r.expectation_id, r.difference_minor])).toEqual([
      ['2026-03-04', 'amount_mismatch', 'pay-2', '-1000'],
      ['2026-03-04', 'missing', 'pay-3', '-40000'],
    ]);
    expect(open[0]!.explanation).toContain('pay-2');
  });

  it('a break resolved by hand leaves the open list and is counted as resolved', async () => {
    const resolved = await runCliInProcess(
      ['expect', 'resolve', 'pay-3', '--reason', 'paid by cheque', '--by', 'finance'],
      { env },
    );
    expect(resolved.code).toBe(0);
    const day = JSON.parse(
      (await report(['--from', '2026-03-04', '--to', '2026-03-04', '--json'])).stdout,
    );
    expect(day.breaks).toContainEqual({ kind: 'missing', open: 0, resolved: 1 });
    expect(day.openBreaks.map((b: { kind: string }) => b.kind)).toEqual(['amount_mismatch']);
  });

  it.each([
    [['--from', '2026-03-05', '--to', '2026-03-04'], /--to 2026-03-04 is before --from 2026-03-05/],
    [['--from', '2026-02-30', '--to', '2026-03-04'], /--from "2026-02-30" is not a calendar day/],
    [['--from', '2026-03-04'], /--to/],
    [
      ['--from', '2026-03-04', '--to', '2026-03-04', '--format', 'xlsx'],
      /--format "xlsx" is not one of table, csv/,
    ],
    [
      ['--from', '2026-03-04', '--to', '2026-03-04', '--format', 'csv', '--json'],
      /--json and --format csv/,
    ],
  ])('%j: exit 2 and one line', async (args, message) => {
    const result = await report(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});
