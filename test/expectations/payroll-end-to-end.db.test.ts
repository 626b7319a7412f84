/**
 * Issue 24's end-to-end proof: a payroll file of 500 expected payouts, loaded with the real
 * `paysync expect import`, paid by the simulator through the real receiver, queues and workers,
 * with its sandbox failures, a few amounts changed, a few payouts paid twice, late or
 * refunded, one in the wrong currency, a few never sent, and a few transfers nobody expected.
 * Afterwards every expectation has the state the scenario implies, each break is open with
 * the kind and difference the scenario implies, and the day's verdict lists every break.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BREAK_KINDS, markOverdue } from '../../src/expectations/index.ts';
import { buildDailyReport, type CoverageCheck } from '../../src/reports/index.ts';
import {
  createDaemonFixture,
  queueBacklog,
  type DaemonFixture,
} from '../processing/support/daemon-fixture.ts';
import { caughtUp, describeState, waitForCatchUp } from '../processing/support/end-state.ts';
import { runCli } from '../support/run-cli.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';

const PAYOUTS = 500;
const EXTRA_TRANSFERS = 4;
const BASE_AMOUNT = 10_000;

/** What the scenario does with payout `i` (checked in this order). */
type Fate =
  | 'recipient_not_found' // the service fails it (sandbox …9901): never paid, missing
  | 'provider_unavailable' // (…9903): missing too
  | 'never_sent' // the merchant never sent it: missing
  | 'paid_more' // paid 500 more: matched, amount_mismatch +500
  | 'paid_less' // paid 300 less: partially_matched, amount_mismatch -300
  | 'paid_twice' // two transfers with its reference: matched, duplicate
  | 'late' // its window ended before it settled: matched, late
  | 'refunded' // paid, then refunded: matched, reversed_after_match
  | 'wrong_currency' // expected in EUR, paid in XOF: overdue, currency_mismatch
  | 'paid';

function fateOf(i: number): Fate {
  if (i % 50 === 3) return 'recipient_not_found';
  if (i % 100 === 29) return 'provider_unavailable';
  if (i % 100 === 57) return 'never_sent';
  if (i % 100 === 11) return 'paid_more';
  if (i % 100 === 12) return 'paid_less';
  if (i % 100 === 21) return 'paid_twice';
  if (i % 100 === 33) return 'late';
  if (i % 100 === 44) return 'refunded';
  if (i === 499) return 'wrong_currency';
  return 'paid';
}

const idOf = (i: number) => `payroll-2026-11-${String(i).padStart(4, '0')}`;
const referenceOf = (i: number) => `PAY-2026-11-${String(i).padStart(4, '0')}`;
const amountOf = (i: number) => BASE_AMOUNT + 10 * i;

function recipientOf(i: number, fate: Fate): string {
  const base = `+2217701${String(i).padStart(4, '0')}`;
  if (fate === 'recipient_not_found') return `${base}9901`;
  if (fate === 'provider_unavailable') return `${base}9903`;
  return `${base}${String(1000 + i).padStart(4, '0')}`;
}

interface Expected {
  readonly state: string;
  readonly breaks: readonly { kind: string; difference: number | null }[];
}

function expectedOf(i: number): Expected {
  const amount = amountOf(i);
  switch (fateOf(i)) {
    case 'recipient_not_found':
    case 'provider_unavailable':
    case 'never_sent':
      return { state: 'overdue', breaks: [{ kind: 'missing', difference: -amount }] };
    case 'paid_more':
      return { state: 'matched', breaks: [{ kind: 'amount_mismatch', difference: 500 }] };
    case 'paid_less':
      return {
        state: 'partially_matched',
        breaks: [{ kind: 'amount_mismatch', difference: -300 }],
      };
    case 'paid_twice':
      return { state: 'matched', breaks: [{ kind: 'duplicate', difference: amount }] };
    case 'late':
      return { state: 'matched', breaks: [{ kind: 'late', difference: null }] };
    case 'refunded':
      return {
        state: 'matched',
        breaks: [{ kind: 'reversed_after_match', difference: -amount }],
      };
    case 'wrong_currency':
      return { state: 'overdue', breaks: [{ kind: 'currency_mismatch', difference: null }] };
    case 'paid':
      return { state: 'matched', breaks: [] };
  }
}

const covered: CoverageCheck = async () => undefined;

describe(`a payroll run of ${PAYOUTS} payouts, end to end, on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  let windowEnd: Date;
  let states: Map<string, string>;
  let openBreaks: {
    expectation: string | null;
    kind: string;
    difference: number | null;
    item: string | null;
    detectedAt: string;
  }[];
  let importOutput: string;

  beforeAll(async () => {
    fixture = await createDaemonFixture({
      sim: { initialBalances: [{ accountType: 'transfer', currency: 'XOF', amount: 100_000_000 }] },
      env: { PAYSYNC_EXPECTATIONS_ALL_EXPECTED: 'out', PAYSYNC_EXPECTATIONS_CRON: 'off' },
    });
    await fixture.startDaemon(['receiver', 'workers']);
    await fixture.registerWebhook();

    // The file: every payout due by an hour from now (real time); a late one's window ended
    // when the simulator's clock (an hour behind) started, before anything settled.
    const simStart = new Date(fixture.sim.control.now()).toISOString();
    windowEnd = new Date(Date.now() + 3_600_000);
    const header =
      'expectation_id,direction,currency,amount,window_from,window_to,reference,counterparty,item_kinds,metadata.employee';
    const rows = Array.from({ length: PAYOUTS }, (_, i) => {
      const fate = fateOf(i);
      const currency = fate === 'wrong_currency' ? 'EUR' : 'XOF';
      const to = fate === 'late' ? simStart : windowEnd.toISOString();
      const from = new Date(Date.parse(simStart) - 86_400_000).toISOString();
      return [
        idOf(i),
        'out',
        currency,
        amountOf(i),
        from,
        to,
        referenceOf(i),
        recipientOf(i, fate),
        'transfer',
        `E-${i}`,
      ].join(',');
    });
    const folder = mkdtempSync(join(tmpdir(), 'paysync-payroll-'));
    const file = join(folder, 'payroll.csv');
    writeFileSync(file, [header, ...rows].join('\n') + '\n');
    const imported = await runCli(['expect', 'import', file, '--json'], {
      env: fixture.env,
      timeoutMs: 120_000,
    });
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    importOutput = imported.stdout;

    // The service pays the run in batches of 25, as a payroll tool would send it.
    const paid: string[] = [];
    for (let start = 0; start < PAYOUTS; start += 25) {
      for (let i = start; i < Math.min(start + 25, PAYOUTS); i += 1) {
        const fate = fateOf(i);
        if (fate === 'never_sent') continue;
        const delta = fate === 'paid_more' ? 500 : fate === 'paid_less' ? -300 : 0;
        const times = fate === 'paid_twice' ? 2 : 1;
        for (let n = 0; n < times; n += 1) {
          const transfer = fixture.sim.control.createTransfer({
            amount: amountOf(i) + delta,
            currency: 'XOF',
            reference: referenceOf(i),
            description: `salary november ${idOf(i)}`,
            destination: { number: recipientOf(i, fate) },
          });
          if (fate === 'refunded') paid.push(transfer.id);
        }
      }
      fixture.sim.control.advance(1_500);
      await until(() => queueBacklog(fixture.daemon!), {
        accept: (waiting) => waiting <= 300,
        message: 'the queue backlog to shrink',
        timeoutMs: 30_000,
        intervalMs: 100,
      }).catch(() => undefined);
    }
    // Transfers no expectation claims: a bonus paid outside the file.
    for (let k = 0; k < EXTRA_TRANSFERS; k += 1) {
      fixture.sim.control.createTransfer({
        amount: 7_000 + k,
        currency: 'XOF',
        reference: `BONUS-${k}`,
        destination: { number: `+22177020000${k}${1000 + k}` },
      });
    }
    fixture.sim.control.advance(10_000);
    // Refunds of paid payouts (the employee sent the money back).
    for (const transactionId of paid) {
      await fixture.client.createTransferRefund({ transactionId, reason: 'returned by employee' });
    }
    fixture.sim.control.advance(10_000);
    const state = await waitForCatchUp(fixture.database.db, fixture.sim, 300_000);
    expect(caughtUp(state), JSON.stringify(describeState(state))).toBe(true);

    // The window passes: the scheduled task's overdue check, an hour after its end.
    await markOverdue(fixture.database.db, new Date(windowEnd.getTime() + 60_000).toISOString(), {
      environment: 'sandbox',
      allExpected: 'out',
    });

    const db = fixture.database.db;
    const expectations = await db
      .selectFrom('expectations')
      .select(['id', 'expectation_id', 'state'])
      .execute();
    states = new Map(expectations.map((e) => [e.expectation_id, e.state]));
    const byRowId = new Map(expectations.map((e) => [e.id, e.expectation_id]));
    const breaks = await db
      .selectFrom('expectation_breaks')
      .select(['expectation', 'kind', 'difference', 'item_id', 'detected_at'])
      .where('state', '=', 'open')
      .execute();
    openBreaks = breaks.map((b) => ({
      expectation: b.expectation === null ? null : (byRowId.get(b.expectation) ?? null),
      kind: b.kind,
      difference: b.difference === null ? null : Number(b.difference),
      item: b.item_id,
      detectedAt: b.detected_at,
    }));
  }, 600_000);

  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('imports the 500 payouts in one run of paysync expect import', () => {
    expect(JSON.parse(importOutput)).toMatchObject({ created: PAYOUTS });
  });

  it('gives every expectation the state its fate implies', () => {
    const wanted = new Map(
      Array.from({ length: PAYOUTS }, (_, i) => [idOf(i), expectedOf(i).state]),
    );
    expect(Object.fromEntries(states)).toEqual(Object.fromEntries(wanted));
  });

  it('opens one break per problem, of the kind and difference its fate implies, and no other', () => {
    const wanted = Array.from({ length: PAYOUTS }, (_, i) =>
      expectedOf(i).breaks.map((b) => ({ expectation: idOf(i), ...b })),
    ).flat();
    const unexpected = Array.from({ length: EXTRA_TRANSFERS }, (_, k) => ({
      expectation: null,
      kind: 'unexpected',
      difference: 7_000 + k,
    }));
    const seen = openBreaks.map(({ expectation, kind, difference }) => ({
      expectation,
      kind,
      difference,
    }));
    const order = (a: { expectation: string | null; kind: string; difference: number | null }) =>
      `${a.expectation ?? '~'} ${a.kind} ${a.difference}`;
    expect(seen.sort((a, b) => order(a).localeCompare(order(b)))).toEqual(
      [...wanted, ...unexpected].sort((a, b) => order(a).localeCompare(order(b))),
    );
    // The scenario covers the whole list of break kinds.
    expect(new Set(seen.map((b) => b.kind))).toEqual(new Set(BREAK_KINDS));
  });

  it('lists every open break in the verdict of the day it was detected, and the day is BREAKS', async () => {
    const days = [...new Set(openBreaks.map((b) => b.detectedAt.slice(0, 10)))];
    const listed: string[] = [];
    for (const day of days) {
      const report = await buildDailyReport({
        db: fixture.database.db,
        environment: 'sandbox',
        day,
        timeZone: 'UTC',
        now: new Date(windowEnd.getTime() + 120_000),
        coverage: covered,
        expectationBreakVerdict: BREAK_KINDS,
      });
      expect(report.verdict).toBe('BREAKS');
      for (const line of report.breaks) {
        if (line.kind.startsWith('expectation_')) listed.push(`${line.kind} ${line.subject}`);
      }
    }
    const wanted = openBreaks.map((b) => `expectation_${b.kind} ${b.expectation ?? b.item}`);
    expect(listed.sort()).toEqual(wanted.sort());
  });
});
