import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/sim/index.ts';
import { closeCliBooks, fundedSimulator, openCliBooks } from '../support/cli-books.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect, type TestDatabase } from '../support/test-database.ts';

/**
 * Issue 40.12: a newcomer books last month's top-up with `paysync adjust --at <last month>`
 * before the first snapshot. The service's balance already holds that top-up, so the first
 * snapshot's opening must be what the service holds beyond what the ledger already holds at the
 * opening's instant, or the top-up is counted twice.
 */
let database: TestDatabase;
let sim: RunningSimulator;
let env: Record<string, string>;

beforeAll(async () => {
  ({ database, sim, env } = await openCliBooks(fundedSimulator()));
});
afterAll(async () => closeCliBooks({ database, sim }));

describe(`an adjustment dated before the first snapshot, on ${testDialect()}`, () => {
  it('is not counted twice: the opening books the service balance beyond it, and the ledger agrees', async () => {
    const lastMonth = new Date(Date.parse(sim.control.now()) - 30 * 86_400_000).toISOString();
    const adjusted = await runCliInProcess(
      [
        'adjust',
        '--account',
        'service:transfer',
        '--amount',
        '1000000',
        '--currency',
        'XOF',
        '--reason',
        'top-up from the bank last month',
        '--by',
        'ama',
        '--at',
        lastMonth,
      ],
      { env },
    );
    expect(adjusted.code).toBe(0);

    const first = await runCliInProcess(['balances'], { env });
    expect(first.code).toBe(0);
    // Before: an opening of 2,500,000 on top of the 1,000,000 adjustment, 3,500,000 in all.
    expect(first.stdout).toContain('Opening balance booked: service:transfer 1,500,000 XOF');
    expect(first.stdout).toMatch(
      /transfer\s+XOF\s+2,500,000 XOF\s+2,500,000 XOF\s+0 \(0 XOF\)\s+agrees/,
    );
  });
});
