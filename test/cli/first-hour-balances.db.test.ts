import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningSimulator } from '../../src/sim/index.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { closeCliBooks, fundedSimulator, openCliBooks } from '../support/cli-books.ts';
import { testDialect, type TestDatabase } from '../support/test-database.ts';

/** Issue 40.9: `balances` says what it writes, and where the read-only view is. */
let database: TestDatabase;
let sim: RunningSimulator;
let env: Record<string, string>;

beforeAll(async () => {
  ({ database, sim, env } = await openCliBooks(fundedSimulator()));
});
afterAll(async () => closeCliBooks({ database, sim }));

describe(`paysync balances says what it writes on ${testDialect()}`, () => {
  it('--help says it takes a snapshot, books the opening balances the first time, and names --cached', async () => {
    const help = await runCliInProcess(['balances', '--help']);
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('take and store a balance snapshot');
    expect(text).toContain('the first one books the opening balances');
    expect(text).toContain('For a read-only view of the last snapshot');
    expect(text).toContain('paysync balances --cached');
  });

  it('its first lines say the snapshot was stored, the openings booked, and where to only read', async () => {
    const first = await runCliInProcess(['balances'], { env });
    expect(first.code).toBe(0);
    const [line1, line2] = first.stdout.split('\n');
    expect(line1).toMatch(
      /^Took and stored a balance snapshot as of \S+ \(for a read-only view of the last one: paysync balances --cached\)\.$/,
    );
    expect(line2).toBe('First snapshot: booked 1 opening balance in the ledger, listed below.');

    sim.control.advance(1_000);
    const second = await runCliInProcess(['balances'], { env });
    expect(second.code).toBe(0);
    expect(second.stdout.split('\n')[0]).toMatch(/^Took and stored a balance snapshot/);
    expect(second.stdout).not.toContain('opening balance');

    const cached = await runCliInProcess(['balances', '--cached'], { env });
    expect(cached.code).toBe(0);
    expect(cached.stdout).not.toContain('Took and stored');
  });

  it('takes the end-of-day snapshot of a closed day that lacks one, so report can judge it at once', async () => {
    // The books so far are today's; a day and a few hours later (service and CLI clocks alike),
    // today is a closed day without its end-of-day snapshot.
    const day = sim.control.now().slice(0, 10);
    const midnight = new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();
    sim.control.createTransfer({ amount: 10_000, destination: { number: '+221770001237' } });
    sim.control.advance(Date.parse(midnight) + 2 * 3_600_000 - Date.parse(sim.control.now()));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(sim.control.now()) });
    try {
      const loaded = await runCliInProcess(['backfill', '--from', day, '--to', 'now'], { env });
      expect(loaded.code, loaded.stderr).toBe(0);
      const run = await runCliInProcess(['balances', '--json'], { env });
      expect(run.code, run.stderr).toBe(0);
      const json = JSON.parse(run.stdout) as {
        endOfDay: { day: string; outcome: { ok: boolean; asOf: string } }[];
      };
      expect(json.endOfDay).toEqual([
        { day, outcome: expect.objectContaining({ ok: true, asOf: midnight }) },
      ]);
      const again = await runCliInProcess(['balances'], { env });
      expect(again.code).toBe(0);
      expect(again.stdout).not.toContain('End-of-day snapshot of');
    } finally {
      vi.useRealTimers();
    }
  });
});
