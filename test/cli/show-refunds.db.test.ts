import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPaymentIntent, applyPaymentRefund, applyTransfer } from '../../src/ledger/index.ts';
import { PAYSYNC_BIN } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import {
  at,
  paymentIntentFixture,
  paymentRefundFixture,
  seen,
  transferFixture,
} from '../ledger/support/ledger-fixtures.ts';
import { fillLedger, type FilledLedger } from './support/filled-ledger.ts';

// Issue 40.8: `paysync show` of a refunded item names every refund and reversal that touches
// it, and prints a recipient's number masked as alerts and the dashboard mask it, unless
// --reveal. The refunded transfer (250,000 XOF to +221770001234, refunded in full) comes from
// the simulator through fillLedger; the payment refund and the reversal from the contract's
// fixtures through the ledger's own apply functions.

let database: TestDatabase;
let filled: FilledLedger;
let env: Record<string, string>;

const FULL_NUMBER = '+221770001234';
const MASKED_NUMBER = '+22177•••••34';

beforeAll(async () => {
  database = await freshDatabase();
  filled = await fillLedger(database.db);
  const db = database.db;
  await applyPaymentIntent(
    db,
    paymentIntentFixture({ id: 'pi_show40', status: 'successful', amount: 5000 }),
    seen(),
  );
  await applyPaymentRefund(
    db,
    paymentRefundFixture({
      id: 4001,
      paymentIntentId: 'pi_show40',
      status: 'successful',
      amount: 2000,
      updatedAt: at(30),
    }),
    seen(),
  );
  await applyPaymentRefund(
    db,
    paymentRefundFixture({
      id: 4002,
      paymentIntentId: 'pi_show40',
      status: 'pending',
      amount: 500,
    }),
    seen(),
  );
  // A refund booked, then failed: its booking is reversed, and the intent says so.
  await applyPaymentIntent(
    db,
    paymentIntentFixture({ id: 'pi_show40b', status: 'successful', amount: 900 }),
    seen(),
  );
  for (const [status, second] of [
    ['successful', 40],
    ['failed', 50],
  ] as const) {
    await applyPaymentRefund(
      db,
      paymentRefundFixture({
        id: 4003,
        paymentIntentId: 'pi_show40b',
        status,
        amount: 300,
        updatedAt: at(second),
      }),
      seen(),
    );
  }
  // Settled, then the service said failed: the ledger books a reversal of the settlement.
  await applyTransfer(db, transferFixture({ id: 'tr_show40rev', status: 'successful' }), seen());
  await applyTransfer(
    db,
    transferFixture({ id: 'tr_show40rev', status: 'failed', updatedAt: at(60) }),
    seen(),
  );
  env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_LOG_LEVEL: 'silent' };
});
afterAll(async () => {
  await database?.cleanup();
});

interface ShownJson {
  record: { id: string; destination?: Record<string, unknown>; raw: unknown };
  history: unknown[];
  journals: unknown[];
  inboxEvents: unknown[];
  refunds: {
    kind: string;
    id: string;
    amount: number;
    currency: string;
    status: string;
    bookedAt: string | null;
  }[];
  reversals: {
    journalId: number;
    settlementKey: string;
    amounts: unknown[];
    effectiveAt: string;
  }[];
  refundOf: { kind: string; id: string; status: string | null } | null;
}

async function shownJson(...args: string[]): Promise<ShownJson> {
  const result = await runCliInProcess(['show', ...args, '--json'], { env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as ShownJson;
}

describe('paysync show names the refunds and reversals of an item', () => {
  it('a refunded transfer does not stop at "It settled": it names its refund, amount and time', async () => {
    const result = await runCliInProcess(['show', filled.successfulTransferId], { env });
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(
      new RegExp(
        `It settled, then 250,000 XOF was refunded by refund ${filled.refundId} on \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z`,
      ),
    );
    expect(out).not.toContain('It settled: the journal below is what it booked.');
    expect(out).toContain('Refunded in full: 250,000 XOF of 250,000 XOF.');
    expect(out).toContain('Refunds and reversals (1)');
    expect(out).toMatch(
      new RegExp(`refund\\s+${filled.refundId}\\s+250,000 XOF\\s+successful\\s+\\d{4}-`),
    );
  });

  it('--json of a refunded transfer lists the refund and keeps the existing fields', async () => {
    const view = await shownJson(filled.successfulTransferId);
    expect(view.record.id).toBe(filled.successfulTransferId);
    expect(view.journals).toHaveLength(1);
    expect(view.history.length).toBeGreaterThan(0);
    expect(view.refunds).toEqual([
      expect.objectContaining({
        kind: 'refund',
        id: filled.refundId,
        amount: 250_000,
        currency: 'XOF',
        status: 'successful',
        bookedAt: expect.stringMatching(/Z$/) as unknown,
      }),
    ]);
    expect(view.reversals).toEqual([]);
    expect(view.refundOf).toBeNull();
  });

  it('a refund names the transfer it refunds, with its status and amount', async () => {
    const result = await runCliInProcess(['show', filled.refundId], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `It refunds ${filled.successfulTransferId} (transfer, successful, 250,000 XOF).`,
    );
    const view = await shownJson(filled.refundId);
    expect(view.refundOf).toEqual({
      kind: 'transfer',
      id: filled.successfulTransferId,
      mirrored: true,
      status: 'successful',
      amount: 250_000,
      currency: 'XOF',
    });
  });

  it('a payment intent names its settled refund and the one still pending', async () => {
    const result = await runCliInProcess(['show', 'pi_show40'], { env });
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain(`It settled, then 2,000 XOF was refunded by refund 4001 on ${at(30)}`);
    expect(out).toContain('Refunded in part: 2,000 XOF of 5,000 XOF.');
    expect(out).toContain('Refund 4002 of 500 XOF is pending: nothing is booked for it');
    expect(out).toContain('Refunds and reversals (2)');
    const view = await shownJson('pi_show40');
    expect(view.refunds.map((r) => [r.kind, r.id, r.amount, r.status, r.bookedAt])).toEqual([
      ['payment_refund', '4002', 500, 'pending', null],
      ['payment_refund', '4001', 2000, 'successful', at(30)],
    ]);
  });

  it('a refund booked and then reversed is named on its item as refunding nothing', async () => {
    const result = await runCliInProcess(['show', 'pi_show40b'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('It settled: the journal below is what it booked.');
    expect(result.stdout).toContain(
      `Refund 4003 of 300 XOF was booked on ${at(40)} and reversed on ${at(50)} (failed): no money is refunded by it.`,
    );
    expect(result.stdout).toMatch(/payment refund\s+4003\s+300 XOF\s+failed \(booking reversed/);
    const view = await shownJson('pi_show40b');
    expect(view.refunds).toEqual([
      expect.objectContaining({
        id: '4003',
        status: 'failed',
        bookedAt: at(40),
        reversedAt: at(50),
      }),
    ]);

    const refund = await runCliInProcess(['show', 'payment_refund:4003'], { env });
    expect(refund.code).toBe(0);
    expect(refund.stdout).toContain('It refunds pi_show40b (payment intent, successful, 900 XOF).');
    expect(refund.stdout).toContain('Reversals (1)');
  });

  it('a transfer whose settlement was reversed names the reversal, in text and --json', async () => {
    const result = await runCliInProcess(['show', 'tr_show40rev'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `It had settled, then its settlement-1 was reversed by journal #\\d+ on ${at(60).replace(/\./g, '\\.')}: 10,100 XOF went back`,
      ),
    );
    expect(result.stdout).toMatch(/reversal\s+#\d+ reversal-1\s+10,100 XOF\s+booked/);
    const view = await shownJson('tr_show40rev');
    expect(view.reversals).toEqual([
      expect.objectContaining({
        settlementKey: 'reversal-1',
        amounts: [{ amount: 10_100, currency: 'XOF' }],
        effectiveAt: at(60),
      }),
    ]);
  });
});

describe('paysync list --json masks phone numbers as show does', () => {
  it('masks the recipient number by default and prints it in full with --reveal', async () => {
    const masked = await runCliInProcess(['list', 'transfers', '--json'], { env });
    expect(masked.code).toBe(0);
    expect(masked.stdout).not.toContain('770001234');
    const rows = JSON.parse(masked.stdout) as { id: string; destination?: { number: string } }[];
    const row = rows.find((r) => r.id === filled.successfulTransferId);
    expect(row?.destination).toMatchObject({ number: MASKED_NUMBER });

    const revealed = await runCliInProcess(['list', 'transfers', '--json', '--reveal'], { env });
    expect(revealed.code).toBe(0);
    expect(revealed.stdout).toContain(FULL_NUMBER);
  });
});

describe('paysync show masks phone numbers as alerts and the dashboard do', () => {
  it('masks the recipient number by default and prints it in full with --reveal', async () => {
    const masked = await runCliInProcess(['show', filled.successfulTransferId], { env });
    expect(masked.code).toBe(0);
    expect(masked.stdout).toContain(`number ${MASKED_NUMBER}`);
    expect(masked.stdout).not.toContain(FULL_NUMBER);
    expect(masked.stdout).not.toContain('770001234');

    const revealed = await runCliInProcess(['show', filled.successfulTransferId, '--reveal'], {
      env,
    });
    expect(revealed.code).toBe(0);
    expect(revealed.stdout).toContain(`number ${FULL_NUMBER}`);
  });

  it('masks it in --json too, in the record and in the raw service JSON; --reveal shows both', async () => {
    const masked = await runCliInProcess(['show', filled.successfulTransferId, '--json'], { env });
    expect(masked.stdout).not.toContain('770001234');
    const view = JSON.parse(masked.stdout) as ShownJson;
    expect(view.record.destination).toMatchObject({ number: MASKED_NUMBER });
    expect(view.record.raw).toMatchObject({ destination: { number: MASKED_NUMBER } });

    const revealed = await runCliInProcess(
      ['show', filled.successfulTransferId, '--json', '--reveal'],
      { env },
    );
    const full = JSON.parse(revealed.stdout) as ShownJson;
    expect(full.record.destination).toMatchObject({ number: FULL_NUMBER });
    expect(full.record.raw).toMatchObject({ destination: { number: FULL_NUMBER } });
  });

  it("masks a failed transfer's recipient, wherever the number appears, text and --json", async () => {
    for (const args of [[], ['--json']]) {
      const masked = await runCliInProcess(['show', filled.failedTransferId, ...args], { env });
      expect(masked.code).toBe(0);
      expect(masked.stdout).toContain('+22177•••••01');
      expect(masked.stdout).not.toContain('770009901');
      const revealed = await runCliInProcess(
        ['show', filled.failedTransferId, ...args, '--reveal'],
        { env },
      );
      expect(revealed.stdout).toContain('+221770009901');
    }
  });

  it('--help says what --reveal prints and to keep it out of tickets', async () => {
    const result = await runCliInProcess(['show', '--help'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--reveal');
    expect(result.stdout).toMatch(/do not paste the\s+output into\s+tickets/);
  });
});

describe('paysync show masks without loading the alerts component', () => {
  it('loads the policy file src/alerts/mask-number, not src/alerts/index (the alert runtime)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'paysync-show40-'));
    const file = join(folder, 'imports.txt');
    const recorder = resolve(import.meta.dirname, '../support/import-recorder/register.mjs');
    try {
      const code = await new Promise<number>((done) => {
        execFile(
          process.execPath,
          ['--import', recorder, PAYSYNC_BIN, 'show', filled.successfulTransferId],
          {
            cwd: folder,
            env: { PATH: process.env.PATH ?? '', PAYSYNC_TEST_IMPORTS_FILE: file, ...env },
            timeout: 60_000,
          },
          (error) => done(error ? 1 : 0),
        );
      });
      expect(code).toBe(0);
      const alerts = readFileSync(file, 'utf8')
        .split('\n')
        .map((url) => /\/src\/alerts\/([^/]+)\.(?:ts|js)$/.exec(url)?.[1])
        .filter(Boolean);
      expect([...new Set(alerts)]).toEqual(['mask-number']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
