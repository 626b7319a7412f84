import { describe, expect, it } from 'vitest';
import { beancountAccount } from '../../src/exports/index.ts';
import { decimalAmount } from '../../src/money/index.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

describe('11: amounts as decimals from the ISO 4217 table', () => {
  it.each([
    [250000, 'XOF', '250000'],
    [-5, 'XOF', '-5'],
    [150050, 'EUR', '1500.50'],
    [-7, 'EUR', '-0.07'],
    [12345, 'TND', '12.345'],
    [-1, 'KWD', '-0.001'],
    [100, 'JPY', '100'],
  ])('%d %s is %s', (minor, currency, text) => {
    expect(decimalAmount(minor, currency)).toBe(text);
  });
});

describe('11: beancount account names', () => {
  it.each([
    ['service:transfer-irt', 'Assets:Service:Transfer-irt'],
    ['income:payments', 'Income:Payments'],
    ['payouts:recipients', 'Expenses:Payouts:Recipients'],
    ['expenses:transfer-fees', 'Expenses:Transfer-fees'],
    ['refunds:customers', 'Expenses:Refunds:Customers'],
    ['equity:opening-balances', 'Equity:Opening-balances'],
    ['adjustments:bank_top.ups', 'Equity:Adjustments:Bank-top-ups'],
  ])('%s → %s', (ledger, beancount) => {
    expect(beancountAccount(ledger)).toBe(beancount);
  });
});

describe('11 acceptance 7: bad export flags exit 2 with one line naming the flag', () => {
  // The first case runs as a real process, the others in this process (issue 39).
  it.each([
    [['--from', '2026-02-30', '--to', '2026-03-01'], /--from "2026-02-30"/],
    [['--from', '2026-11-01', '--to', 'soon'], /--to "soon"/],
    [
      ['--from', '2026-11-01', '--to', '2026-12-01', '--format', 'xlsx'],
      /--format "xlsx" is not one of csv, jsonl, hledger, beancount/,
    ],
    [['--from', '2026-11-02', '--to', '2026-11-01'], /--to 2026-11-01 .* is not after --from/],
    [
      ['--from', '2026-11-01', '--to', '2026-12-01', '--environment', 'prod'],
      /--environment "prod"/,
    ],
    [
      ['--from', '2026-11-01', '--to', '2026-12-01', '--format', 'hledger', '--kind', 'transfer'],
      /--kind works with --format csv or jsonl only/,
    ],
    [['--to', '2026-12-01'], /--from/],
  ])('export %j', async (args, message) => {
    const run = args[1] === '2026-02-30' ? runCli : runCliInProcess;
    const result = await run(['export', ...args], {
      env: { PAYSYNC_DATABASE_URL: 'sqlite:./nowhere/paysync.db' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(
      result.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('(run with')),
    ).toHaveLength(1);
    expect(result.stdout).toBe('');
  });
});
