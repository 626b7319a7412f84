import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/sim/index.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

// The first `balances` runs as a real process, to prove the boundary; the other checks of
// output and exit codes run the same program in this process (issue 39).
import { closeCliBooks, fundedSimulator, openCliBooks } from '../support/cli-books.ts';
import type { TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
let sim: RunningSimulator;
let env: Record<string, string>;

beforeAll(async () => {
  ({ database, sim, env } = await openCliBooks(fundedSimulator()));
});
afterAll(async () => closeCliBooks({ database, sim }));

describe('paysync balances, adjust and report', () => {
  it('takes a snapshot, books the opening balance and shows service against ledger', async () => {
    const result = await runCli(['balances'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Balances as of \d{4}-\d{2}-\d{2}T/m);
    expect(result.stdout).toMatch(
      /transfer\s+XOF\s+2,500,000 XOF\s+2,500,000 XOF\s+0 \(0 XOF\)\s+agrees/,
    );
    expect(result.stdout).toContain('Opening balance booked: service:transfer 2,500,000 XOF');

    const json = await runCliInProcess(['balances', '--cached', '--json'], { env });
    expect(json.code).toBe(0);
    const cached = JSON.parse(json.stdout) as { comparisons: { difference: number }[] };
    expect(cached.comparisons.map((c) => c.difference)).toEqual([0]);
  });

  it('books an adjustment, shows it, and the next snapshot explains drift with it gone', async () => {
    sim.control.fund({ accountType: 'transfer', currency: 'XOF', amount: 300_000 });
    const drift = await runCliInProcess(['balances'], { env });
    expect(drift.code).toBe(0);
    expect(drift.stdout).toMatch(/transfer\s+XOF.*DRIFT/);
    expect(drift.stdout).toContain('unexplained: 300,000 XOF');

    const booked = await runCliInProcess(
      [
        'adjust',
        '--account',
        'service:transfer',
        '--amount',
        '300000',
        '--currency',
        'XOF',
        '--reason',
        'top-up from bank',
        '--by',
        'ama',
        '--at',
        sim.control.now(),
      ],
      { env },
    );
    expect(booked.stderr).toBe('');
    expect(booked.code).toBe(0);
    const id = /Booked (adj_[0-9a-f]+)/.exec(booked.stdout)?.[1];
    expect(id).toBeDefined();
    expect(booked.stdout).toContain('service:transfer +300,000 XOF against adjustments:manual');

    const shown = await runCliInProcess(['show', id!], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Reason: top-up from bank');
    expect(shown.stdout).toContain('Booked by ama');

    sim.control.advance(1_000);
    const agrees = await runCliInProcess(['balances', '--json'], { env });
    const outcome = JSON.parse(agrees.stdout) as { comparisons: { verdict: string }[] };
    expect(outcome.comparisons.map((c) => c.verdict)).toEqual(['agrees']);
  });

  it.each([
    [
      [
        'adjust',
        '--account',
        'service:transfer',
        '--amount',
        '12.5',
        '--currency',
        'XOF',
        '--reason',
        'x y z',
      ],
      '--amount "12.5"',
    ],
    [
      ['adjust', '--account', 'bank', '--amount', '5', '--currency', 'XOF', '--reason', 'x y z'],
      '--account "bank"',
    ],
    [
      [
        'adjust',
        '--account',
        'transfer',
        '--amount',
        '5',
        '--currency',
        'XOF',
        '--reason',
        'top-up',
        '--counter',
        'income:x',
      ],
      '--counter "income:x"',
    ],
    [['report', '--date', '2030-02-30'], '--date "2030-02-30"'],
    [['balances', '--at', '2030-02-30'], '--at "2030-02-30"'],
  ])('refuses %j with exit 2 naming the flag, booking nothing', async (args, named) => {
    const result = await runCliInProcess(args, { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(named);
  });

  it('exits 4 for a day it cannot vouch for, with the reason', async () => {
    const result = await runCliInProcess(['report', '--date', '2020-01-01'], { env });
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(/^2020-01-01 \(UTC, sandbox\): INCOMPLETE/);
    expect(result.stdout).toContain(
      'no end-of-day balance snapshot as of 2020-01-02T00:00:00.000Z',
    );
  });

  it("says plainly that the service's balance could not be read, and books nothing", async () => {
    sim.control.setFaults({ balanceShape: 'opaque' });
    try {
      const result = await runCliInProcess(['balances'], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^paysync balances: the service's balance could not be read: no list of balances was found .*nothing was booked\)\n$/,
      );
    } finally {
      sim.control.setFaults({ balanceShape: 'list' });
    }
  });
});
